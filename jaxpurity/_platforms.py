"""What jaxpurity needs from JAX's platforms: a CPU device, where host callbacks run.

``jax.debug.print`` and ``jax.debug.callback`` run their Python on a CPU device.
:func:`jaxpurity.printed` collects their output and the checks watch a program
through them, so with ``JAX_PLATFORMS=cuda`` (no CPU device) they say so and how
to fix it, instead of failing inside JAX. Untested on a real GPU: the tests
simulate a missing CPU device.
"""

from __future__ import annotations

import os

import jax

__all__ = ["missing_cpu_platform", "require_cpu_device"]


def missing_cpu_platform(platforms: str, needs: str) -> str | None:
    """Why ``needs`` cannot run with ``JAX_PLATFORMS=platforms``, or None where it can.

    Args:
      platforms: The value of ``JAX_PLATFORMS`` ("" when unset: JAX keeps the CPU).
      needs: Who needs the CPU device, in words ("jaxpurity.check_pure").

    Returns:
      The message, naming the setting that works, or None.

    Example:
      >>> missing_cpu_platform("cuda,cpu", "it") is None and missing_cpu_platform("", "it") is None
      True
      >>> print(missing_cpu_platform("cuda", "jaxpurity.printed()"))  # doctest: +ELLIPSIS
      JAX_PLATFORMS=cuda leaves JAX no CPU device, ... or set JAX_PLATFORMS=cuda,cpu
    """
    names = [name.strip() for name in platforms.split(",") if name.strip()]
    if not names or "cpu" in names:
        return None
    return (
        f"JAX_PLATFORMS={platforms} leaves JAX no CPU device, and {needs} needs one: "
        "jax.debug.print and jax.debug.callback run their Python on it. To run on a GPU, unset "
        "JAX_PLATFORMS (JAX then uses the GPU and keeps the CPU), or set "
        f"JAX_PLATFORMS={','.join(names)},cpu"
    )


def require_cpu_device(needs: str) -> None:
    """Raise a clear error where JAX has no CPU device for ``needs`` to run callbacks on.

    Raises:
      RuntimeError: ``jax.devices("cpu")`` finds none; the message names
        ``JAX_PLATFORMS`` and the setting that works.

    Example:
      >>> require_cpu_device("jaxpurity.check_pure")  # a CPU device is here: nothing happens
    """
    try:
        jax.devices("cpu")
    except RuntimeError as error:
        platforms = os.environ.get("JAX_PLATFORMS") or jax.config.jax_platforms or ""
        why = missing_cpu_platform(platforms, needs) or (
            f"JAX has no CPU device, and {needs} needs one: jax.debug.print and "
            "jax.debug.callback run their Python on it. Set JAX_PLATFORMS=cuda,cpu (or your "
            "accelerator's name, then cpu)"
        )
        raise RuntimeError(why) from error
