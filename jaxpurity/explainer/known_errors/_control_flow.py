"""The errors of the pages in ``gallery/control_flow/``: Python control flow and shapes under jit.

A traced value where Python or JAX needs a concrete one (``if``, ``int()``, a
size, a slice's bounds, a mask, a static argument). Most share the messages of
the concretization family, told apart by the code that raised or the words
around the message. The section's other errors, of types and writes, are in
:mod:`~jaxpurity.explainer.known_errors._control_flow_types`. Each group is tried where
:data:`jaxpurity.explainer.known_errors.KNOWN_ERRORS` puts it.
"""

from __future__ import annotations

from jaxpurity.explainer.known_errors._shared import (
    ARRAY_CONVERSION,
    BOOL,
    BOOL_OLD,
    CONCRETE,
    CONVERSION,
    INDEX,
    NEEDS_A_NUMBER,
    NEEDS_A_NUMBER_ERRORS,
    NOT_AN_ARRAY,
    NOT_AN_INTEGER,
    SHAPE_WITHOUT_TRACER,
    SHAPES,
    UNEXPECTED,
    KnownError,
    Wording,
    any_of,
)

__all__ = [
    "CONCRETIZATION_CATCH_ALL",
    "CONTROL_FLOW_ON_TRACERS",
    "CONVERSIONS_UNDER_GRAD_OR_VMAP",
    "JAXPURITY_OWN_ERRORS",
    "JAX_FUNCTION_TRACED",
    "NUMBERS_FOR_JAX_FUNCTIONS",
    "SIZES_AND_STATIC_ARGUMENTS",
    "TRACED_SLICE_BOUNDS",
]

_BOOL_WHEN = r"problem arose with the `bool` function|\(in `bool`\)|Abstract value passed to `bool`"
# float() or complex() of a tracer (JAX 0.2.0 on), and the line that says jit was tracing.
_FLOAT = r"The problem arose with the `(?:float|complex)`"
_TRACING_FOR_JIT = r"(?:The error occurred while tracing|While tracing) the function"
# The jax.numpy functions whose result's size depends on the data (without size=): their
# names, as JAX's source and tracebacks have them, and as code and messages call them.
_SIZED_BY_DATA_NAMES = r"nonzero|argwhere|flatnonzero|unique\w{0,20}|compress|extract"
_SIZED_BY_DATA = rf"(?:jnp|jax\.numpy)\.(?:{_SIZED_BY_DATA_NAMES}|where)\b"
_SIZED_BY_DATA_ERROR = Wording(
    rf"(?:size argument of|arose in|arose for the \w+ argument of) {_SIZED_BY_DATA}",
    "JAX 0.2.1 (arose in), 0.2.13 (size argument of), 0.3.14 (arose for the first "
    "argument of) to 0.12.0.1; git history",
    regex=True,
)
# jit given an argument that is not an array, nor a pytree of arrays, and not static.
_NOT_AN_ARRAY = (
    NOT_AN_ARRAY,
    Wording(
        r"of type <class '[\w.]{1,200}'> is not a valid JAX type",
        "JAX before 0.4.30: pasted in jax-ml/jax#13914 (2023)",
        regex=True,
    ),
)
# Where the traceback shows the code that raised (ErrorBlock.raised: "path in function", then
# the line): a function in JAX's or NumPy's own source (its packages, which a folder of one's
# own named jax/ does not have: /home/me/jax/train.py is no JAX source).
_JAX_LIBRARY_PATH = (
    r"(?:^|[/\\])jax[/\\](?:_src|numpy|lax|ops|nn|scipy|image|interpreters|experimental)[/\\]"
)
_NUMPY_LIBRARY_PATH = r"(?:^|[/\\])numpy[/\\](?:core|_core|lib|linalg|fft|random|ma)[/\\]"
_IN_JAX = rf"{_JAX_LIBRARY_PATH}[^\n]{{0,300}} in "
_IN_JAX_OR_NUMPY = rf"(?:{_JAX_LIBRARY_PATH}|{_NUMPY_LIBRARY_PATH})[^\n]{{0,300}} in "
# Or the raising line transforms one of JAX's functions itself, so that every argument of it
# is traced, its settings too: jax.make_jaxpr(jax.lax.integer_pow)(x, 2), jax.jit(jnp.tile).
_JAX_FUNCTION_TRANSFORMED = (
    r"\b(?:jit|make_jaxpr|vmap|grad)\((?:jax\.)?(?:lax|numpy|jnp|nn|ops|random|image)\.\w{1,60}\)"
)
_DYNAMIC_SLICE = r"dynamic_(?:update_)?slice\w{0,20}"
# A setting, not data: the names people give a flag or a size. A traced value by such a name
# in `if`, bool() or int() is an argument that should be static (the static_arguments page's
# `if normalize:`), not data to branch on with lax.cond.
_SETTING_NAME = (
    r"(?:inference|deterministic|train|training|eval|evaluate|normalize|verbose|debug|reverse"
    r"|causal|mode|axis|axes|ndim|size|length|steps|(?:is|use|has|enable|with|return)_\w{1,30}"
    r"|(?:max|num|n)_\w{1,30}|\w{1,30}_(?:size|steps|mode|flag))"
)
# Where a message or a traceback names it: JAX's detail line (0.2.1 on: "depends on the value
# of the argument runner_state[0].dropout.inference.") or the line the traceback shows raising
# (`if inference:`, `if max_steps == 1:`, `while not self.training:`).
_SETTING_TRACED = any_of(
    r"depends on the value of the argument [`']?(?:[\w'\"\]]{1,80}[.\[]){0,12}['\"]?"
    rf"{_SETTING_NAME}[`'\"\]]{{0,2}}(?![\w\[])",
    rf"\b(?:if|elif|while) (?:not )?(?:self\.|config\.|cfg\.)?{_SETTING_NAME}"
    r"(?: ?(?:==|!=|<=|>=|<|>|is not|is) ?[\w.'\"-]{1,40})? ?:",
)


def _number_for_jax(
    when: str | None = None,
    raised_in: str | None = None,
    also: tuple[str, ...] = (),
    also_worded: tuple[Wording, ...] = (),
) -> KnownError:
    """A number needed from a traced value by a function of JAX's (or NumPy's) own.

    ``also`` and ``also_worded`` are more errors, and their wordings, that mean it here.
    """
    return KnownError(
        errors=(*NEEDS_A_NUMBER_ERRORS, *also),
        topic="static_arguments",
        wordings=(*NEEDS_A_NUMBER, *also_worded),
        when=when,
        unless=SHAPE_WITHOUT_TRACER,
        raised_in=raised_in,
        scenario="A jitted function passed a value computed from its arguments to a JAX or "
        "NumPy function that needs a Python number there: a size (num_segments, "
        "num_classes, a shape, a length), an axis, or a count.",
        cause="Under jit every argument is a tracer, with a shape and dtype but no value, and "
        "the function needs the value while tracing, because it decides the result's shape.",
        fix="Mark the argument static (jax.jit(f, static_argnames='n')) so it stays a Python "
        "number, or pass a constant; JAX compiles once for each value it sees.",
    )


def _sized_by_data(when: str | None = None, raised_in: str | None = None) -> KnownError:
    """A number needed from traced data by a jax.numpy function whose result it sizes."""
    return KnownError(
        errors=NEEDS_A_NUMBER_ERRORS,
        topic="boolean_masks",
        wordings=NEEDS_A_NUMBER,
        unless=SHAPE_WITHOUT_TRACER,
        when=when,
        raised_in=raised_in,
        scenario="A jitted function called a jax.numpy function whose result's size depends "
        "on the data (jnp.nonzero, jnp.where(mask), jnp.unique, jnp.compress, jnp.extract, "
        "jnp.argwhere) without size=.",
        cause="The number of results is the number of True (or distinct) entries, which is "
        "unknown while tracing; jit needs every shape fixed in advance, so the function asks "
        "for the traced data's value and fails.",
        fix="Pass a static bound: jnp.nonzero(mask, size=k, fill_value=...) (also "
        "jnp.unique, jnp.compress, jnp.argwhere); or keep the shape fixed with "
        "jnp.where(mask, x, 0) and reductions with where=.",
    )


#: Slicing with traced bounds.
TRACED_SLICE_BOUNDS: tuple[KnownError, ...] = (
    KnownError(
        errors=("IndexError", "TypeError"),
        topic="dynamic_slicing",
        wordings=(
            Wording(
                "Array slice indices must have static start/stop/step",
                "JAX 0.1.49 and older to 0.8.1, and 0.12.0.1 (git history); pasted in "
                "jax-ml/jax#7222, AakashKumarNain/mistral_jax#1",
            ),
            Wording(
                "Slice entries must be static integers",
                "JAX 0.8.2 to 0.11.0 (git history), and 0.10.2",
            ),
        ),
        scenario="A jitted or vmapped function sliced an array with traced bounds, as in "
        "x[i:i + k] or x[:n] with i or n an argument (also x.at[i:i + k].set(...)).",
        cause="A slice's length comes from its start and stop, so with traced bounds its shape "
        "is unknown while tracing, and jit needs every shape fixed; NumPy slicing also "
        "shortens a slice that runs past the end, so even i:i + k has no fixed length.",
        fix="For a window of static size k at a traced start, use "
        "jax.lax.dynamic_slice_in_dim(x, i, k) (or x[jax.ds(i, k)] in JAX 0.9.1+), and "
        "lax.dynamic_update_slice to write; both clamp an out-of-range start. For a traced "
        "length, mask with jnp.where(jnp.arange(len(x)) < n, x, 0), or make n static.",
    ),
)

#: A function of JAX's own, jitted whole, so that its settings are traced too.
JAX_FUNCTION_TRACED: tuple[KnownError, ...] = (
    # JAX's message names the function jit traced, and it is one of JAX's own: jax.jit(jnp.tile)
    # traces every argument, the settings too (JAX 0.4.35: "while tracing the function tile at
    # .../jax/_src/numpy/lax_numpy.py:4366 for jit"; JAX 0.6.2 calls the traced exponent of
    # jax.jit(jax.lax.integer_pow) a leak: "The function being traced when the value leaked was
    # integer_pow at .../jax/_src/lax/lax.py:924 traced for jit"). Not JAX's wrappers of a
    # loop's body ("scanned_fun at .../loops.py for scan"), which trace the user's code.
    _number_for_jax(
        when=r"(?:while tracing the function|being traced when the value leaked was) \S{1,200} "
        rf"at \S{{0,300}}?{_JAX_LIBRARY_PATH}\S{{0,300}} (?:traced )?for (?:jit|pjit|make_jaxpr)\b",
        also=("TracerArrayConversionError", "UnexpectedTracerError"),
        also_worded=(*ARRAY_CONVERSION, *UNEXPECTED),
    ),
)

#: A traced value where a JAX or NumPy function needs a number: what the function is.
NUMBERS_FOR_JAX_FUNCTIONS: tuple[KnownError, ...] = (
    # The traceback's raising frame names the function that asked the tracer for its value
    # (JAX 0.10.2: jnp.compress's `if any(...)` raises in compress, jnp.where(mask) in
    # nonzero, segment_sum in _segment_update; pasted in jax-ml/jax#6350, #1629).
    _sized_by_data(raised_in=rf"{_IN_JAX}_?(?:{_SIZED_BY_DATA_NAMES}|where)(?:\n|$)"),
    # Or the text names one (the raising line, or the words around a pasted message).
    _sized_by_data(when=rf"(?:jnp|jax\.numpy)\.(?:{_SIZED_BY_DATA_NAMES})\b"),
    KnownError(
        errors=(*NEEDS_A_NUMBER_ERRORS, "IndexError"),
        topic="dynamic_slicing",
        wordings=NEEDS_A_NUMBER,
        unless=SHAPE_WITHOUT_TRACER,
        raised_in=rf"{_IN_JAX}{_DYNAMIC_SLICE}(?:\n|$)|\b{_DYNAMIC_SLICE}\(",
        scenario="A jitted function called jax.lax.dynamic_slice (or dynamic_slice_in_dim, "
        "dynamic_update_slice) with a slice size computed from its arguments.",
        cause="dynamic_slice takes a traced start but a static size: the size is the result's "
        "shape, which jit must know while tracing.",
        fix="Keep the window's size a Python int (a constant, or a static argument) and let "
        "only the start be traced; for a traced length, slice the largest size and mask the "
        "rest with jnp.where(jnp.arange(k) < n, window, 0).",
    ),
    _number_for_jax(raised_in=any_of(_IN_JAX_OR_NUMPY, _JAX_FUNCTION_TRANSFORMED)),
)

#: Python control flow and conversions on tracers.
CONTROL_FLOW_ON_TRACERS: tuple[KnownError, ...] = (
    # A traced flag or size in `if` or int(): the fix is a static argument, not lax.cond.
    KnownError(
        errors=(
            "TracerBoolConversionError",
            "ConcretizationTypeError",
            "TracerIntegerConversionError",
        ),
        topic="static_arguments",
        wordings=(),
        when=_SETTING_TRACED,
        unless=_SIZED_BY_DATA,
        scenario="A jitted function used a setting it takes as an argument (a flag such as "
        "`inference` or `training`, or a size such as `max_steps`) in `if`, `while`, bool() "
        "or int().",
        cause="Under jit every argument is a tracer, flags and sizes too: it has a shape and "
        "dtype but no value, so Python cannot choose a branch or a size from it.",
        fix="Mark the setting static: jax.jit(f, static_argnames='inference'), or "
        "(Equinox, Flax) keep it in a static field, so that each value compiles its own "
        "program; use jax.lax.cond only when the condition really is data.",
    ),
    KnownError(
        errors=("TracerBoolConversionError",),
        topic="python_control_flow",
        see_also=("static_arguments", "boolean_masks"),
        wordings=(BOOL,),
        scenario="A jitted function used `if`, `while`, `and`/`or` or `assert` on a value "
        "computed from its arguments.",
        cause="Python needs a real True or False to choose a branch, but under jit the "
        "value is a tracer, which has a shape and dtype but no value yet.",
        fix="Choose values with jnp.where, branches with jax.lax.cond or jax.lax.switch, "
        "and loop with jax.lax.while_loop; if the argument is a setting, not data, mark "
        "it static (static_argnames=...).",
    ),
    KnownError(
        errors=("ConcretizationTypeError",),
        topic="python_control_flow",
        wordings=BOOL_OLD,
        when=_BOOL_WHEN,
        scenario="A jitted function used `if`, `while`, `and`/`or` or `assert` on a value "
        "computed from its arguments.",
        cause="Python needs a real True or False (the `bool` function) to choose a branch, "
        "but under jit the value is a tracer, which has no value yet.",
        fix="Choose values with jnp.where, branches with jax.lax.cond or jax.lax.switch, "
        "and loop with jax.lax.while_loop; if the argument is a setting, not data, mark "
        "it static (static_argnames=...).",
    ),
    KnownError(
        errors=("TracerIntegerConversionError",),
        topic="python_control_flow",
        see_also=("static_arguments",),
        wordings=(
            INDEX,
            Wording(
                r"indices must be integers or slices, not \w*Tracer",
                "Python's TypeError for a list indexed with a tracer: pasted in jax-ml/jax#5853",
                regex=True,
            ),
            NOT_AN_INTEGER,
        ),
        scenario="A jitted function used a traced value as a Python int: a list or tuple "
        "index, range(n), or a size.",
        cause="Python asks the value for an int (`__index__`), but under jit it is a tracer "
        "with no value yet.",
        fix="Index an array instead of a list (jnp.asarray(items)[i]), loop with "
        "jax.lax.fori_loop instead of range(n), or mark the argument static "
        "(static_argnames=...).",
    ),
    # float() of a value jit traces: JAX says it "depends on the values of the arguments params
    # and x", data, and that a dtype conversion is x.astype(float), not float(x). So the fix is
    # to keep the value an array (or print it with jax.debug.print), which is this page's
    # "Why": a conversion of a traced value to a Python value needs the value, and the way
    # out is an operation JAX records or a static argument. A setting named as one
    # (`if training`, float(num_steps)) went to static_arguments above; grad's and vmap's
    # float() has no jit trace line (leak_from_grad_vmap). int() stays with the catch-all:
    # mostly a size, for static_arguments. JAX 0.4.35 and 0.12.0.1 (live).
    KnownError(
        errors=("ConcretizationTypeError",),
        topic="python_control_flow",
        see_also=("static_arguments",),
        wordings=(CONVERSION,),
        when=any_of(
            rf"{_FLOAT} function.{{0,600}}?{_TRACING_FOR_JIT}",
            rf"{_TRACING_FOR_JIT}.{{0,600}}?{_FLOAT} function",
        ),
        scenario="A jitted function called float() (or complex()) on a value computed from "
        "its arguments: to print it, to log it, or to use it as a Python number.",
        cause="Under jit the value is a tracer: it has a shape and a dtype but no value until "
        "the compiled program runs, so Python cannot turn it into a number while JAX traces.",
        fix="Keep it an array: compute with jax.numpy (x.astype(jnp.float32) changes the "
        "dtype), print it with jax.debug.print, and call float() on the jitted function's "
        "result, outside jit. If the argument is a setting, not data, mark it static "
        "(static_argnames=...).",
    ),
    KnownError(
        errors=("TracerArrayConversionError",),
        topic="python_control_flow",
        see_also=("static_arguments",),
        wordings=ARRAY_CONVERSION,
        scenario="A transformed function passed a traced value to NumPy (np.asarray, np.sin, "
        "...) or another library that needs a concrete array.",
        cause="NumPy needs real numbers, and a tracer cannot become a numpy.ndarray while "
        "JAX is tracing.",
        fix="Use jax.numpy instead of numpy inside jit, grad and vmap; run unavoidable host "
        "code through jax.pure_callback, and print with jax.debug.print.",
    ),
)

#: float() of a value computed under grad or vmap, while it runs.
CONVERSIONS_UNDER_GRAD_OR_VMAP: tuple[KnownError, ...] = (
    # float(), int(), complex(), or a function of Python's math module (math.exp calls float)
    # on a grad or vmap tracer: JAX 0.4.35, 0.10.2 and 0.12.0.1 name no traced function (that
    # line is jit's, and "While tracing the function ..." was jit's from 0.2.0 to 0.3.15). A
    # tracer kept and converted after grad or vmap returned reads the same; where the traceback
    # shows that, the leak entries above take it. The message alone reads as this, the common
    # case, with the leak's page under "See also".
    KnownError(
        errors=("ConcretizationTypeError",),
        topic="python_control_flow",
        see_also=("leak_from_grad_vmap", "static_arguments"),
        wordings=(CONVERSION,),
        when=CONVERSION.text,
        unless=r"The error occurred while tracing the function|While tracing the function",
        scenario="A function under jax.grad or jax.vmap called float(), int() or complex() on a "
        "value computed from its arguments, or a function of Python's math module "
        "(math.exp, math.log), which calls float().",
        cause="Under grad and vmap every value computed from the arguments is a tracer: it has a "
        "shape and a dtype, and under vmap a whole batch of values, so Python cannot turn it "
        "into one number.",
        fix="Keep it an array: compute with jax.numpy (jnp.exp(x) instead of math.exp(x), "
        "x.astype(jnp.float32) to change the dtype), print it with jax.debug.print, and call "
        "float() on the result outside the transformation.",
    ),
)

#: Sizes, shapes and static arguments.
SIZES_AND_STATIC_ARGUMENTS: tuple[KnownError, ...] = (
    KnownError(
        errors=("ConcretizationTypeError",),
        topic="boolean_masks",
        wordings=(_SIZED_BY_DATA_ERROR,),
        when=_SIZED_BY_DATA_ERROR.text,
        scenario="A jitted function called jnp.nonzero, jnp.argwhere, jnp.where(mask) or "
        "jnp.unique without size=, or indexed with a boolean mask.",
        cause="The number of results is the number of True entries, which is unknown while "
        "tracing; jit needs every shape fixed in advance.",
        fix="Pass a static bound: jnp.nonzero(mask, size=k, fill_value=...); or keep the "
        "shape fixed with jnp.where(mask, x, 0) and reductions with where=.",
    ),
    KnownError(
        errors=("TypeError",),
        topic="static_arguments",
        see_also=("dynamic_slicing",),
        # Not a shape that names no tracer ("got ((1000,), (1000, 1000))": a malformed shape,
        # pasted in jax-ml/jax#14199).
        unless=SHAPE_WITHOUT_TRACER,
        wordings=(
            SHAPES,
            Wording(
                r"parameters to jaxpr equations must have __hash__ and __eq__ methods\. In a call "
                r"to primitive \w{1,60}, the value of parameter \w{1,60} was not hashable: "
                r".{0,80}?Tracer",
                "JAX 0.10.2 and 0.12.0.1 (live: jax.jit(jax.lax.integer_pow)(x, 2))",
                regex=True,
            ),
            Wording(
                r"Unexpected type of axis argument: <class '[\w.]*Tracer'>",
                "JAX 0.1.49 and older to 0.2.8 (git history)",
                regex=True,
            ),
        ),
        scenario="A jitted function built an array whose shape (or axis) comes from an "
        "argument, such as jnp.zeros(n).",
        cause="jit compiles for fixed shapes, but the size is a traced argument whose value "
        "is unknown while tracing.",
        fix="Mark the size argument static: jax.jit(f, static_argnames='n'), so each new "
        "size compiles once; or pass an array of the right shape instead.",
    ),
    KnownError(
        errors=("TypeError",),
        topic="static_arguments",
        wordings=(
            Wording(
                r"unhashable type: '\w{0,40}Tracer'",
                "Python's TypeError for a tracer hashed: JAX 0.1.x static arguments of JAX's own "
                "jitted functions (random.randint's shape), pasted in jax-ml/jax#648 (2019); "
                "functools.lru_cache or a dict key in jit, JAX 0.10.2 (live)",
                regex=True,
            ),
        ),
        scenario="A jitted function passed a traced value where Python needs a hashable one: "
        "a static argument (a shape or size given to a function that jits with "
        "static_argnums), a dict key, or an argument of a functools.lru_cache function.",
        cause="A tracer cannot be hashed: it stands for any value of its shape and dtype, so "
        "it cannot pick a compiled program, a dict entry or a cache entry.",
        fix="Mark the argument static (jax.jit(f, static_argnames='n')) so it stays a Python "
        "value; key dicts and caches by Python values (shapes, settings), never by traced "
        "arrays.",
    ),
    # A setting jit cannot trace (a string, a function) passed as an ordinary argument wants
    # static_argnames. A function may be a jitted one (jnp.sin is a PjitFunction), a NumPy
    # ufunc, a partial, a builtin or a bound method (JAX 0.4.35 and 0.12.0.1, live). Not an
    # object of another class: that message comes as often from one handed to jax.numpy (a
    # library's variable class unwrapped: keras-team/keras#19186).
    KnownError(
        errors=("TypeError",),
        topic="static_arguments",
        wordings=_NOT_AN_ARRAY,
        when=r"of type <class '(?:str|int|float|bool|complex|NoneType|function|type|slice|method"
        r"|builtin_function_or_method|functools\.partial|numpy\.ufunc|jaxlib\.[\w.]{1,40}"
        r"\.(?:PjitFunction|\w{0,20}Device))'>",
        scenario="A jitted function was called with an argument jit cannot trace, such as a "
        "string ('add', 'relu'), and it was not marked static.",
        cause="jit traces every argument not marked static as an array; a string or a function "
        "has no array form, so jit cannot make a tracer for it.",
        fix="Mark it static: jax.jit(f, static_argnames='mode'), so each value compiles its "
        "own program; pass numbers as arrays only when they are data.",
    ),
    # An object of another class (a config, a model) given to a jitted function of the user's
    # as an ordinary argument. jit's words name the function (NOT_AN_ARRAY: JAX 0.4.35, 0.10.2
    # and 0.12.0.1, live); the functions of jax.numpy are jitted too, and an object handed to
    # one (jnp.sin(obj), a library's variable class: keras-team/keras#19186) reads the same. So
    # the traceback must show the user's code calling the function by that name (`called`:
    # step(x, config), not jnp.sin(obj)); the message alone is not claimed, nor "is not a
    # valid JAX type", nor its cause "Cannot interpret value of type ...", which name no
    # function. `self` went to its own entry.
    KnownError(
        errors=("TypeError",),
        topic="static_objects",
        see_also=("static_arguments",),
        wordings=(NOT_AN_ARRAY,),
        when=r"Error interpreting argument to <function (?:[\w<>]{1,100}\.){0,10}"
        r"(?P<called>\w{1,100}) at ",
        scenario="A jitted function was called with an object it cannot trace (a config or "
        "settings object, a model, an instance of your own class) as an ordinary argument.",
        cause="jit traces every argument not marked static as an array or a pytree of arrays; "
        "an object of a class JAX does not know is neither, so jit cannot make a tracer for it.",
        fix="Make the object a pytree (jaxpurity.dataclass, or register it) so that its arrays "
        "are traced, or pass it as a static argument (static_argnames=...) if it is immutable "
        "and hashable: a @dataclass(frozen=True) or a NamedTuple, not one changed after a call.",
    ),
    KnownError(
        errors=("ValueError",),
        topic="static_objects",
        wordings=(
            Wording(
                "Non-hashable static arguments are not supported",
                "JAX 0.2.6 to 0.12.0.1 (git history); pasted in jax-ml/jax#7561, "
                "genjax-community/genjax#1179",
            ),
            Wording(
                r"Static argument \(index \d+\) of type [^\n]{0,80}? is non-hashable",
                "JAX 0.2.5, a warning; 0.2.6 on, in the error (git history)",
                regex=True,
            ),
        ),
        scenario="A value passed as a static argument of jit (static_argnums or "
        "static_argnames) cannot be hashed: a list, a dict, an array, or an object such as a "
        "plain @dataclass (whose __hash__ is None) or one holding a list.",
        cause="jit looks static arguments up in its compile cache by hash and equality, so "
        "each must be hashable, and equal values must mean the same program; a static object "
        "changed after a call is not seen (jit runs the program of its old value).",
        fix="Pass an immutable, value-hashed object: a tuple instead of a list or dict, a "
        "@dataclass(frozen=True) or NamedTuple instead of a config class. Pass arrays and "
        "numbers as ordinary traced arguments, or make the object a pytree "
        "(jaxpurity.dataclass, with static_field for the settings that choose code).",
    ),
    KnownError(
        errors=("ValueError",),
        topic="static_objects",
        wordings=(
            Wording(
                "static arguments should be comparable using __eq__",
                "JAX 0.4.35, 0.6.2, 0.10.2 and 0.12.0.1 (live: a static dataclass with a NumPy "
                "array field, called twice); pasted in jax-ml/jax#9290 (2022)",
            ),
        ),
        scenario="jit compared a static argument with the one it cached (on a later call) and "
        "the comparison raised: an object whose __eq__ compares an array field "
        "('The truth value of an array with more than one element is ambiguous'), or one "
        "that cannot be compared with the other's type.",
        cause="jit finds a compiled program by the static arguments' hash and then ==, which "
        "must return one bool; a dataclass's generated __eq__ compares its fields as a tuple, "
        "and an array field makes that comparison an array.",
        fix="Keep arrays out of static arguments: pass them as ordinary traced arguments (or "
        "make the object a pytree, with jaxpurity.dataclass, whose array fields are leaves); "
        "give a static object fields that compare as one bool (numbers, strings, tuples).",
    ),
    KnownError(
        errors=("NonConcreteBooleanIndexError",),
        topic="boolean_masks",
        wordings=(
            Wording(
                "Array boolean indices must be concrete", "JAX 0.1.76 to 0.12.0.1 (git history)"
            ),
            Wording("Array boolean indices must be static", "JAX 0.1.49 and older to 0.1.75 (git)"),
        ),
        scenario="A jitted function indexed an array with a boolean mask, as in x[x > 0].",
        cause="The result's length is the number of True entries, which is unknown while "
        "tracing; jit needs every shape fixed in advance.",
        fix="Keep the shape fixed: jnp.where(mask, x, 0), reductions with where= "
        "(jnp.sum(x, where=mask)), or jnp.nonzero(mask, size=k, fill_value=...) with a "
        "static bound k.",
    ),
)

#: The catch-all of the concretization family.
CONCRETIZATION_CATCH_ALL: tuple[KnownError, ...] = (
    # The catch-all of the concretization family, after the errors whose messages carry the
    # same detail lines ("This concrete value was not available in Python ...").
    # Not for a text that names one of the family's own classes (its last lines pasted alone:
    # "The error occurred while tracing ...", then "See .../errors.html#jax.errors.
    # TracerBoolConversionError"): the lines are the family's, the class says which it is.
    KnownError(
        errors=("ConcretizationTypeError",),
        topic="static_arguments",
        see_also=("python_control_flow", "boolean_masks", "dynamic_slicing"),
        unless=r"\bTracer(?:Bool|Integer|Array)ConversionError\b",
        wordings=(
            CONCRETE,
            Wording(
                "which requires a concrete value", "JAX 0.1.49 and older to 0.1.64 (git history)"
            ),
            Wording(
                "JAX Tracer object cannot be interpreted as a float", "JAX 0.1.63 to 0.1.77 (git)"
            ),
            CONVERSION,
            Wording(
                "concrete value was not available in Python because it depends on",
                "JAX 0.2.1 to 0.12.0.1 (git history)",
            ),
            Wording(
                "value became a tracer due to JAX operations on these lines",
                "JAX 0.2.0 to 0.12.0.1 (git history)",
            ),
            Wording(
                "try using `static_argnums` or applying `jit` to smaller subfunctions",
                "JAX 0.1.58 to 0.12.0.1 (git history)",
            ),
        ),
        scenario="A jitted function needed a concrete Python value (a size for jnp.arange, "
        "a float() or int()) from a traced argument.",
        cause="Under jit, arguments are tracers: JAX knows their shape and dtype but not "
        "their value, so anything needed while tracing cannot depend on them.",
        fix="Mark the argument static (jax.jit(f, static_argnames=...)) when it is a "
        "setting such as a size, or rewrite so that only shapes, not values, decide what "
        "the code does.",
    ),
)

#: jaxpurity's own errors: routed by the first line, which names the API.
JAXPURITY_OWN_ERRORS: tuple[KnownError, ...] = (
    KnownError(
        errors=("TypeMismatchError",),
        topic="cond_branch_types",
        wordings=(),
        when=r"(?:^|TypeMismatchError: )[^:]*\b(?:cond|switch|branch|branches)\b",
        scenario="jaxpurity's cond or switch found branches that return different types.",
        cause="cond and switch have one output, so every branch must return the same pytree "
        "with the same shape and dtype at each leaf; the message lists each leaf that "
        "differs, by its path.",
        fix="Follow the message's 'How to fix' line for each leaf: usually cast with "
        ".astype(...), or build placeholders with jnp.zeros_like.",
    ),
    KnownError(
        errors=("TypeMismatchError",),
        topic="loop_carry_types",
        wordings=(),
        when=r"(?:^|TypeMismatchError: )[^:]*\b(?:scan|fori_loop|while_loop|carry|state|init_val|"
        r"Stateful)\b",
        scenario="A loop body or a Stateful step returned a carry (state) of another type "
        "than the one it was given; jaxpurity checked it.",
        cause="The carry feeds the next step, so its pytree structure, shapes and dtypes must "
        "stay the same (under jit, a state that changes type would also recompile on every "
        "call); the message lists each leaf that changed.",
        fix="Follow the message's 'How to fix' line for each leaf: give the initial value "
        "its final dtype (jnp.zeros((), jnp.float32), not 0), and accumulate in a dtype wide "
        "enough for the sum before casting the result.",
    ),
    KnownError(
        errors=("RetraceError",),
        topic="static_arguments",
        wordings=(
            Wording(r"was traced \d+ times, more than max_traces=\d+", "jaxpurity 0.1", regex=True),
        ),
        scenario="A function wrapped in jaxpurity.count_traces(max_traces=...) was traced "
        "more times than allowed.",
        cause="jit traces and compiles again whenever an argument's shape, dtype or weak type "
        "changes, a static argument takes a new value, or a new object is passed as a static "
        "argument; the message names each argument that changed.",
        fix="Follow the message's 'To avoid the retrace' line: keep shapes and dtypes fixed "
        "(pad or bucket), pass arrays rather than Python scalars, and keep static arguments "
        "to a few values (a number that is data can be passed as an array instead; a size "
        "or an axis must stay static).",
    ),
)
