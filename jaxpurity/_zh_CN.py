"""What :func:`jaxpurity.explain` says in Chinese: ``explain(err, lang="zh_CN")``.

Each scenario, cause and fix of :mod:`jaxpurity.explainer.known_errors`, and the labels
of an explanation, keyed by the English text, as a gettext catalog is;
``tests/test_languages.py`` checks that every text has its translation and
every translation a text. The terms follow
the site's glossary (``docs/glossary.rst``): API names, ``tracer`` and error
messages stay in English.
"""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # memoization_caches: scenario
    (
        "Code called float(), int() or bool() (or `if`) on a value that a cached function had "
        "saved outside itself (in a list, a global or an attribute)."
    ): (
        "代码对一个值调用了 float()、int() 或 bool()（或把它用在 `if` 中），而这个值是某个带缓存的"
        "函数保存到自身之外的（存进了列表、全局变量或属性）。"
    ),
    # memoization_caches: cause
    (
        "The value is a tracer left over from a trace that has ended: it has a shape and a dtype "
        "but no value, so it cannot become a Python number. It is not a setting that needs to be "
        "static."
    ): (
        "这个值是一次已经结束的追踪遗留下来的 tracer：它有 shape 和 dtype，却没有具体的值，因此无法"
        "变成 Python 数字。它并不是一个需要标记为静态的配置参数。"
    ),
    # memoization_caches: fix
    (
        "Do not cache what a traced function computes from its arguments: functools.lru_cache and "
        "dicts outlive the trace. Cache only values built from static arguments outside any trace, "
        "or let jit cache the compiled function for you."
    ): (
        "不要缓存被追踪的函数根据其参数算出的结果：functools.lru_cache 和字典的生命周期都比追踪更长"
        "。只缓存在任何追踪之外、由静态参数构造的值，或者让 jit 替你缓存编译好的函数。"
    ),
    # leak_from_loop_body: scenario
    (
        "Code called float(), int() or bool() (or `if`) on a value that a scan, while_loop or "
        "fori_loop body had saved outside itself (in a list, a global or an attribute)."
    ): (
        "代码对一个值调用了 float()、int() 或 bool()（或把它用在 `if` 中），而这个值是某个 scan、wh"
        "ile_loop 或 fori_loop 的循环体保存到自身之外的（存进了列表、全局变量或属性）。"
    ),
    # leak_from_loop_body: fix
    (
        "Return what you need from the body: put it in the carry, or in scan's per-step output "
        "(`carry, y = body(carry, x)`), and read it from the loop's result."
    ): (
        "把需要的值从循环体中返回：放进 carry（循环携带值），或放进 scan 的每步输出（`carry, y = bo"
        "dy(carry, x)`），再从循环的结果中读取。"
    ),
    # leak_from_grad_vmap: scenario
    (
        "Code called float(), int() or bool() (or `if`) on a value that a function under grad or "
        "vmap had saved outside itself (in a list, a global or an attribute)."
    ): (
        "代码对一个值调用了 float()、int() 或 bool()（或把它用在 `if` 中），而这个值是某个处于 grad"
        " 或 vmap 之下的函数保存到自身之外的（存进了列表、全局变量或属性）。"
    ),
    # leak_from_grad_vmap: fix
    (
        "Return the value instead: get side results out of grad with jax.value_and_grad or "
        "has_aux=True, and return extra outputs from the vmapped function."
    ): (
        "改为返回这个值：用 jax.value_and_grad 或 has_aux=True 从 grad 中取出附带结果，并让经过 vma"
        "p 的函数把额外的输出一并返回。"
    ),
    # leak_through_self: scenario
    (
        "Code called float(), int() or bool() (or `if`) on a value that a jitted method had saved "
        "outside itself (in a list, a global or an attribute)."
    ): (
        "代码对一个值调用了 float()、int() 或 bool()（或把它用在 `if` 中），而这个值是某个经过 jit "
        "的方法保存到自身之外的（存进了列表、全局变量或属性）。"
    ),
    # leak_through_self: fix
    (
        "Keep state out of `self` inside a transformed method: pass it in, return the new value, "
        "and build the updated object outside (a pytree dataclass, dataclasses.replace). In Flax, "
        "Haiku or Equinox use their own transforms and state APIs (nn.jit, hk.vmap, "
        "eqx.filter_jit) rather than raw jax.jit on a module's method."
    ): (
        "在经过变换的方法中不要把状态存进 `self`：把状态作为参数传入，返回新值，并在外部构造更新后"
        "的对象（pytree dataclass、dataclasses.replace）。在 Flax、Haiku 或 Equinox 中，请使用它们"
        "各自的变换和状态 API（nn.jit、hk.vmap、eqx.filter_jit），而不是直接对模块的方法使用原生的 "
        "jax.jit。"
    ),
    # global_counter: scenario
    (
        "Code called float(), int() or bool() (or `if`) on a value that a jitted function had "
        "saved outside itself (in a list, a global or an attribute)."
    ): (
        "代码对一个值调用了 float()、int() 或 bool()（或把它用在 `if` 中），而这个值是某个经过 jit "
        "的函数保存到自身之外的（存进了列表、全局变量或属性）。"
    ),
    # global_counter: fix
    (
        "Make the function pure: pass the state in as an argument and return the new state "
        "(`count, y = step(count, x)`). jaxpurity.find_leaks(f, x) names the variable that holds "
        "the tracer and the line that stored it."
    ): (
        "把函数改成纯函数：把状态作为参数传入，并返回新的状态（`count, y = step(count, x)`）。jaxpu"
        "rity.find_leaks(f, x) 会指出持有该 tracer 的变量，以及存入它的那一行代码。"
    ),
    # dynamic_slicing: scenario
    (
        "A jitted or vmapped function sliced an array with traced bounds, as in x[i:i + k] or "
        "x[:n] with i or n an argument (also x.at[i:i + k].set(...))."
    ): (
        "经过 jit 或 vmap 的函数用被追踪的边界对数组做了切片，例如 x[i:i + k] 或 x[:n]，其中 i 或 n"
        " 是函数参数（x.at[i:i + k].set(...) 也一样）。"
    ),
    # dynamic_slicing: cause
    (
        "A slice's length comes from its start and stop, so with traced bounds its shape is "
        "unknown while tracing, and jit needs every shape fixed; NumPy slicing also shortens a "
        "slice that runs past the end, so even i:i + k has no fixed length."
    ): (
        "切片的长度由起点和终点决定，所以边界被追踪时，切片的 shape 在追踪时是未知的，而 jit 要求所"
        "有 shape 都固定；此外，NumPy 切片超出末尾时会被截短，所以即便是 i:i + k 也没有固定的长度。"
    ),
    # dynamic_slicing: fix
    (
        "For a window of static size k at a traced start, use jax.lax.dynamic_slice_in_dim(x, i, "
        "k) (or x[jax.ds(i, k)] in JAX 0.9.1+), and lax.dynamic_update_slice to write; both clamp "
        "an out-of-range start. For a traced length, mask with jnp.where(jnp.arange(len(x)) < n, "
        "x, 0), or make n static."
    ): (
        "如果窗口大小 k 是静态的、起点是被追踪的，读取时用 jax.lax.dynamic_slice_in_dim(x, i, k)（J"
        "AX 0.9.1+ 中也可以写成 x[jax.ds(i, k)]），写入时用 lax.dynamic_update_slice；两者都会把越"
        "界的起点截断到有效范围内。如果长度是被追踪的，就用 jnp.where(jnp.arange(len(x)) < n, x, 0)"
        " 做掩码，或者把 n 设为静态。"
    ),
    # leak_through_self: scenario
    (
        "A JAX transform (jax.jit, jax.vmap, lax.scan, ...) ran inside a Haiku transformed "
        "function, whose modules keep state between calls."
    ): (
        "在经过 Haiku 变换（hk.transform）的函数内部运行了 JAX 变换（jax.jit、jax.vmap、lax.scan 等"
        "），而这类函数中的模块会在多次调用之间保存状态。"
    ),
    # leak_through_self: cause
    (
        "Haiku modules store parameters and state in the hk.transform context; a raw JAX transform "
        "inside it traces that state, and the tracer outlives the transform."
    ): (
        "Haiku 模块把参数和状态保存在 hk.transform 的上下文中；在其中直接使用的原生 JAX 变换会追踪"
        "这些状态，而产生的 tracer 在该变换结束后仍然存活。"
    ),
    # leak_through_self: fix
    (
        "Use Haiku's own transforms inside modules (hk.jit, hk.vmap, hk.scan, hk.remat) instead of "
        "jax.* ones, or move the JAX transform outside hk.transform."
    ): (
        "在模块内部使用 Haiku 自己的变换（hk.jit、hk.vmap、hk.scan、hk.remat），而不是 jax.* 的变换"
        "；或者把 JAX 变换移到 hk.transform 之外。"
    ),
    # memoization_caches: scenario
    (
        "A cache (functools.lru_cache, a dict) kept a value computed while tracing, and later code "
        "used it."
    ): ("某个缓存（functools.lru_cache、字典）保存了追踪时算出的值，之后的代码又用到了它。"),
    # memoization_caches: cause
    (
        "The cache outlives the trace, so it hands back a tracer that belonged to a trace that has "
        "ended."
    ): ("缓存的生命周期比追踪更长，因此它交回的是一个属于已结束追踪的 tracer。"),
    # leak_from_loop_body: scenario
    (
        "A scan, while_loop or fori_loop body saved a value outside itself (in a list, a global or "
        "an attribute), and later code used it."
    ): (
        "scan、while_loop 或 fori_loop 的循环体把一个值保存到了自身之外（存进列表、全局变量或属性）"
        "，之后的代码又用到了它。"
    ),
    # leak_from_loop_body: cause
    (
        "JAX traces a loop body once, with tracers standing in for the carry and the step's "
        "inputs; a tracer stored outside the body outlives that trace and is dead by the time it "
        "is used."
    ): (
        "JAX 只追踪循环体一次，用 tracer 代替 carry 和每一步的输入；存到循环体之外的 tracer 比这次"
        "追踪活得更久，等到被使用时早已失效。"
    ),
    # leak_from_grad_vmap: scenario
    (
        "A function under jax.grad, jax.vjp, jax.jvp or jax.vmap saved an intermediate value "
        "outside itself, and later code used it."
    ): (
        "处于 jax.grad、jax.vjp、jax.jvp 或 jax.vmap 之下的函数把一个中间值保存到了自身之外，之后的"
        "代码又用到了它。"
    ),
    # leak_from_grad_vmap: cause
    (
        "grad and vmap call your function with tracers instead of arrays; one stored in a global, "
        "a list or an attribute outlives the transformation."
    ): (
        "grad 和 vmap 调用你的函数时传入的是 tracer 而不是数组；存进全局变量、列表或属性的 tracer "
        "在变换结束后仍然存活。"
    ),
    # leak_through_self: scenario
    ("A jitted method stored a value on an object (self.x = ...), and later code used it."): (
        "经过 jit 的方法把一个值存到了对象上（self.x = ...），之后的代码又用到了它。"
    ),
    # leak_through_self: cause
    (
        "While jit traces a method, its values are tracers; one stored on an object that outlives "
        "the call is dead once the trace has ended."
    ): (
        "在 jit 追踪方法时，方法中的值都是 tracer；存到一个比这次调用活得更久的对象上的 tracer，在"
        "追踪结束后就失效了。"
    ),
    # side_effects_across_devices: scenario
    (
        "A function under shard_map or pmap stored a value in a global, a list or an attribute "
        "(one device's block, to look at later), and later code used it."
    ): (
        "处于 shard_map 或 pmap 之下的函数把一个值（某个设备上的分块，打算之后查看）存进了全局变量"
        "、列表或属性，之后的代码又用到了它。"
    ),
    # side_effects_across_devices: cause
    (
        "shard_map and pmap trace the function once for every device, with a tracer standing for "
        "one device's block; a tracer kept outside the function outlives that trace, and never had "
        "one device's value."
    ): (
        "shard_map 和 pmap 只为所有设备追踪一次函数，用一个 tracer 代表单个设备上的分块；保存在函数"
        "之外的 tracer 比这次追踪活得更久，而且它从来就不持有任何一个设备上的值。"
    ),
    # side_effects_across_devices: fix
    (
        "Return the value as another output (out_specs=(P('d'), P('d'))), or look at each device's "
        "block while it runs with jax.debug.print or jax.debug.callback."
    ): (
        "把这个值作为额外的输出返回（out_specs=(P('d'), P('d'))），或者在运行时用 jax.debug.print "
        "或 jax.debug.callback 查看每个设备上的分块。"
    ),
    # global_counter: scenario
    (
        "A jitted function stored a value in a global, a list or an attribute (a counter, a cache, "
        "self.x), and later code used it."
    ): (
        "经过 jit 的函数把一个值存进了全局变量、列表或属性（计数器、缓存、self.x），之后的代码又用"
        "到了它。"
    ),
    # global_counter: cause
    (
        "While jit traces a function its values are tracers; a tracer saved outside the function "
        "outlives the trace, and Python side effects run only once, when the function is traced."
    ): (
        "在 jit 追踪函数时，函数中的值都是 tracer；保存到函数之外的 tracer 比追踪活得更久，而且 Pyt"
        "hon 副作用只会在函数被追踪时运行一次。"
    ),
    # global_counter: fix
    (
        "Make the function pure: pass the state in as an argument and return the new state "
        "(`count, y = step(count, x)`). Wrap the call in `with jax.checking_leaks():` to be shown "
        "the line that leaks."
    ): (
        "把函数改成纯函数：把状态作为参数传入，并返回新的状态（`count, y = step(count, x)`）。把调"
        "用放进 `with jax.checking_leaks():` 中，即可看到发生泄漏的那一行。"
    ),
    # memoization_caches: scenario
    (
        "jax.checking_leaks() (or JAX_CHECK_TRACER_LEAKS) caught a cache (functools.lru_cache, a "
        "dict) keeping a reference to one of its tracers."
    ): (
        "jax.checking_leaks()（或 JAX_CHECK_TRACER_LEAKS）发现某个缓存（functools.lru_cache、字典）"
        "仍持有追踪中某个 tracer 的引用。"
    ),
    # memoization_caches: cause
    (
        "Something outside the traced code (a list, a global, an attribute, a cache) still holds a "
        "tracer after JAX finished tracing it; the message's reference chain lists what holds it, "
        "the last line naming the root."
    ): (
        "在 JAX 追踪完成后，被追踪代码之外的某个东西（列表、全局变量、属性、缓存）仍然持有一个 trac"
        "er；错误信息中的引用链列出了持有它的对象，最后一行指出的是根对象。"
    ),
    # leak_from_loop_body: scenario
    (
        "jax.checking_leaks() (or JAX_CHECK_TRACER_LEAKS) caught a scan, while_loop or fori_loop "
        "body keeping a reference to one of its tracers."
    ): (
        "jax.checking_leaks()（或 JAX_CHECK_TRACER_LEAKS）发现某个 scan、while_loop 或 fori_loop 的"
        "循环体仍持有追踪中某个 tracer 的引用。"
    ),
    # leak_from_grad_vmap: scenario
    (
        "jax.checking_leaks() (or JAX_CHECK_TRACER_LEAKS) caught a function under grad, jvp or "
        "vmap keeping a reference to one of its tracers."
    ): (
        "jax.checking_leaks()（或 JAX_CHECK_TRACER_LEAKS）发现某个处于 grad、jvp 或 vmap 之下的函数"
        "仍持有追踪中某个 tracer 的引用。"
    ),
    # leak_through_self: scenario
    (
        "jax.checking_leaks() (or JAX_CHECK_TRACER_LEAKS) caught an object's attribute keeping a "
        "reference to one of its tracers."
    ): (
        "jax.checking_leaks()（或 JAX_CHECK_TRACER_LEAKS）发现某个对象的属性仍持有追踪中某个 tracer"
        " 的引用。"
    ),
    # global_counter: scenario
    (
        "jax.checking_leaks() (or JAX_CHECK_TRACER_LEAKS) caught a jitted function keeping a "
        "reference to one of its tracers."
    ): (
        "jax.checking_leaks()（或 JAX_CHECK_TRACER_LEAKS）发现某个经过 jit 的函数仍持有追踪中某个 t"
        "racer 的引用。"
    ),
    # leak_through_self: scenario
    (
        "A Flax module (or an NNX object) was used across a raw JAX transform: jax.jit, jax.vmap "
        "or lax.scan around a bound module or its state."
    ): (
        "Flax 模块（或 NNX 对象）被跨越原生 JAX 变换使用：在绑定的模块或其状态外面套了 jax.jit、jax"
        ".vmap 或 lax.scan。"
    ),
    # leak_through_self: cause
    (
        "Flax objects hold state that belongs to one trace level; touching or mutating it from "
        "inside another trace would leak tracers into the object, so Flax refuses."
    ): (
        "Flax 对象持有的状态属于某一个追踪层级；从另一个追踪内部访问或修改它，会把 tracer 泄漏到对"
        "象中，所以 Flax 拒绝这样做。"
    ),
    # leak_through_self: fix
    (
        "Use Flax's lifted transforms (nn.jit, nn.vmap, nn.scan; nnx.jit, nnx.scan) or call the "
        "pure apply function (model.apply(variables, x)) inside the JAX transform."
    ): (
        "使用 Flax 的提升变换（lifted transforms：nn.jit、nn.vmap、nn.scan；nnx.jit、nnx.scan），或"
        "者在 JAX 变换内部调用纯函数形式的 apply（model.apply(variables, x)）。"
    ),
    # buffer_donation: scenario
    (
        "A jitted function with donate_argnums was given one array twice among its donated "
        "arguments: the same array passed twice, or two leaves of a donated pytree that are one "
        "array (an optimizer state that holds the params themselves)."
    ): (
        "一个带 donate_argnums 的 jit 函数在被捐赠的参数里两次收到了同一个数组：同一个数组传了"
        "两次，或者被捐赠的 pytree 中有两个叶子是同一个数组（例如优化器状态里直接存着 params "
        "本身）。"
    ),
    # buffer_donation: cause
    (
        "Donating hands a buffer over to one output; XLA cannot hand the same buffer over twice, "
        "so it refuses to run the program."
    ): ("捐赠会把一个缓冲区交给一个输出；XLA 无法把同一个缓冲区交出两次，因此拒绝运行这个程序。"),
    # buffer_donation: fix
    (
        "Pass distinct arrays: copy the one that is shared (jnp.copy(params) where the state is "
        "built), or donate only one of the two arguments."
    ): (
        "传入互不相同的数组：在构造状态的地方复制被共享的那个（jnp.copy(params)），或者只捐赠两个参数"
        "中的一个。"
    ),
    # retracing_storms: scenario
    (
        "JAX logged that it traced and compiled a jitted function (jax_log_compiles), as it does "
        "on a call that misses jit's cache."
    ): (
        "JAX 记录了它追踪并编译了一个 jit 函数（jax_log_compiles），每次调用未命中 jit 的缓存时"
        "都会这样记录。"
    ),
    # retracing_storms: cause
    (
        "Every such line is a new trace and compilation: logged again and again for one function, "
        "it means the cache misses, usually because the function is a new object on each call "
        "(jitted, or a lambda or partial made, inside a loop) or its arguments' shapes, dtypes or "
        "static values keep changing."
    ): (
        "每一行这样的日志都意味着一次新的追踪和编译：同一个函数反复出现，说明缓存一直未命中，"
        "通常是因为函数在每次调用时都是一个新对象（在循环里 jit，或在循环里创建 lambda、"
        "partial），或者参数的 shape、dtype 或静态值不断变化。"
    ),
    # retracing_storms: fix
    (
        "jit once, outside the loop; keep each argument's shape, dtype and weak type the same from "
        "call to call; turn on jax_explain_cache_misses to see what changed."
    ): (
        "只在循环外 jit 一次；让每个参数的 shape、dtype 和 weak type 在各次调用之间保持不变；打开 "
        "jax_explain_cache_misses 查看是什么发生了变化。"
    ),
    # boolean_masks (a data-sized jax.numpy function): scenario
    (
        "A jitted function called a jax.numpy function whose result's size depends on the data "
        "(jnp.nonzero, jnp.where(mask), jnp.unique, jnp.compress, jnp.extract, jnp.argwhere) "
        "without size=."
    ): (
        "经过 jit 的函数调用了结果大小取决于数据的 jax.numpy 函数（jnp.nonzero、jnp.where(mask)、"
        "jnp.unique、jnp.compress、jnp.extract、jnp.argwhere），却没有传 size=。"
    ),
    # boolean_masks (a data-sized jax.numpy function): cause
    (
        "The number of results is the number of True (or distinct) entries, which is unknown "
        "while tracing; jit needs every shape fixed in advance, so the function asks for the "
        "traced data's value and fails."
    ): (
        "结果的个数等于 True（或互不相同）的元素个数，追踪时还不知道；jit 要求每个 shape 事先固定，"
        "所以这个函数要去取被追踪数据的值，于是出错。"
    ),
    # boolean_masks (a data-sized jax.numpy function): fix
    (
        "Pass a static bound: jnp.nonzero(mask, size=k, fill_value=...) (also jnp.unique, "
        "jnp.compress, jnp.argwhere); or keep the shape fixed with jnp.where(mask, x, 0) and "
        "reductions with where=."
    ): (
        "传入一个静态上界：jnp.nonzero(mask, size=k, fill_value=...)（jnp.unique、jnp.compress、"
        "jnp.argwhere 同理）；或者用 jnp.where(mask, x, 0) 以及带 where= 的归约来保持 shape 固定。"
    ),
    # dynamic_slicing (a traced size for dynamic_slice): scenario
    (
        "A jitted function called jax.lax.dynamic_slice (or dynamic_slice_in_dim, "
        "dynamic_update_slice) with a slice size computed from its arguments."
    ): (
        "经过 jit 的函数调用了 jax.lax.dynamic_slice（或 dynamic_slice_in_dim、"
        "dynamic_update_slice），而切片大小是由参数算出来的。"
    ),
    # dynamic_slicing (a traced size for dynamic_slice): cause
    (
        "dynamic_slice takes a traced start but a static size: the size is the result's shape, "
        "which jit must know while tracing."
    ): (
        "dynamic_slice 的起点可以是 tracer，大小却必须是静态的：大小就是结果的 shape，jit 在追踪时"
        "就必须知道它。"
    ),
    # dynamic_slicing (a traced size for dynamic_slice): fix
    (
        "Keep the window's size a Python int (a constant, or a static argument) and let only the "
        "start be traced; for a traced length, slice the largest size and mask the rest with "
        "jnp.where(jnp.arange(k) < n, window, 0)."
    ): (
        "让窗口大小保持为 Python int（常量或静态参数），只让起点被追踪；如果长度本身是 tracer，就按"
        "最大长度切片，再用 jnp.where(jnp.arange(k) < n, window, 0) 把多出的部分遮掉。"
    ),
    # static_arguments (a number for a JAX or NumPy function): scenario
    (
        "A jitted function passed a value computed from its arguments to a JAX or NumPy function "
        "that needs a Python number there: a size (num_segments, num_classes, a shape, a length), "
        "an axis, or a count."
    ): (
        "经过 jit 的函数把一个由参数算出的值传给了 JAX 或 NumPy 的函数，而那个位置需要的是 Python "
        "数字：大小（num_segments、num_classes、shape、长度）、轴，或者个数。"
    ),
    # static_arguments (a number for a JAX or NumPy function): cause
    (
        "Under jit every argument is a tracer, with a shape and dtype but no value, and the "
        "function needs the value while tracing, because it decides the result's shape."
    ): (
        "在 jit 下每个参数都是 tracer，只有 shape 和 dtype，没有值；"
        "而这个函数在追踪时就需要这个值，因为它决定了结果的 shape。"
    ),
    # static_arguments (a number for a JAX or NumPy function): fix
    (
        "Mark the argument static (jax.jit(f, static_argnames='n')) so it stays a Python number, "
        "or pass a constant; JAX compiles once for each value it sees."
    ): (
        "把这个参数标记为静态（jax.jit(f, static_argnames='n')），让它保持为 Python 数字，或者直接"
        "传常量；JAX 会为见到的每个值各编译一次。"
    ),
    # retracing_storms (chex or equinox counted the traces): scenario
    (
        "A limit on the number of traces (chex.assert_max_traces or "
        "equinox.debug.assert_max_traces) failed: a jitted function was traced again."
    ): (
        "追踪次数的上限（chex.assert_max_traces 或 equinox.debug.assert_max_traces）被突破了："
        "一个经过 jit 的函数又被追踪了一次。"
    ),
    # retracing_storms (chex or equinox counted the traces): fix
    (
        "jit once, outside the loop, and keep each argument's shape, dtype and weak type the same "
        "from call to call (a Python float or a jnp.float32, not both); turn on "
        "jax_explain_cache_misses to be told which argument changed."
    ): (
        "只在循环外 jit 一次，并让每个参数的 shape、dtype 和 weak type 在每次调用时保持不变"
        "（要么是 Python float，要么是 jnp.float32，不要混用）；打开 jax_explain_cache_misses，"
        "JAX 会告诉你是哪个参数变了。"
    ),
    # print_vs_debug_print (a format string of jax.debug.print): scenario
    (
        "jax.debug.print was given a format string whose placeholders do not take all its "
        "arguments: a %-style string ('x = %d'), or fewer {} than values."
    ): (
        "传给 jax.debug.print 的格式字符串里，占位符没有用上全部参数：用了 % 风格的字符串"
        "（'x = %d'），或者 {} 比值少。"
    ),
    # print_vs_debug_print (a format string of jax.debug.print): cause
    (
        "jax.debug.print formats with str.format when the compiled function runs: only {} (or "
        "{name}) placeholders take values, and an argument no placeholder takes is an error."
    ): (
        "jax.debug.print 在编译好的函数运行时用 str.format 来格式化：只有 {}（或 {name}）占位符"
        "会接收值，没有被任何占位符用到的参数就是错误。"
    ),
    # print_vs_debug_print (a format string of jax.debug.print): fix
    (
        "Write the format with braces, one per value: jax.debug.print('x = {} y = {:.3f}', x, y), "
        "or by name: jax.debug.print('x = {x}', x=x)."
    ): (
        "用花括号写格式，每个值一个：jax.debug.print('x = {} y = {:.3f}', x, y)，或者按名字："
        "jax.debug.print('x = {x}', x=x)。"
    ),
    # static_arguments (a setting jit cannot trace): scenario
    (
        "A jitted function was called with an argument jit cannot trace, such as a string "
        "('add', 'relu'), and it was not marked static."
    ): (
        "调用经过 jit 的函数时传入了 jit 无法追踪的参数，比如字符串（'add'、'relu'），"
        "却没有把它标记为静态。"
    ),
    # static_arguments (a setting jit cannot trace): cause
    (
        "jit traces every argument not marked static as an array; a string or a function has no "
        "array form, so jit cannot make a tracer for it."
    ): (
        "jit 会把每个没有标记为静态的参数当作数组来追踪；字符串或函数没有数组形式，"
        "所以 jit 无法为它生成 tracer。"
    ),
    # static_arguments (a setting jit cannot trace): fix
    (
        "Mark it static: jax.jit(f, static_argnames='mode'), so each value compiles its own "
        "program; pass numbers as arrays only when they are data."
    ): (
        "把它标记为静态：jax.jit(f, static_argnames='mode')，这样每个值各自编译一份程序；"
        "只有当数字是数据时，才把它们作为数组传入。"
    ),
    # static_arguments: scenario
    (
        "A jitted function passed a traced value where Python needs a hashable one: a static "
        "argument (a shape or size given to a function that jits with static_argnums), a dict "
        "key, or an argument of a functools.lru_cache function."
    ): (
        "经过 jit 的函数在 Python 需要可哈希值的地方传入了一个被追踪的值：静态参数（传给一个用 "
        "static_argnums 做 jit 的函数的 shape 或大小）、dict 的键，或 functools.lru_cache "
        "函数的参数。"
    ),
    # static_arguments: cause
    (
        "A tracer cannot be hashed: it stands for any value of its shape and dtype, so it cannot "
        "pick a compiled program, a dict entry or a cache entry."
    ): (
        "tracer 无法被哈希：它代表其 shape 和 dtype 下的任意值，因此无法用来选定编译好的程序、"
        "dict 中的条目或缓存中的条目。"
    ),
    # static_arguments: fix
    (
        "Mark the argument static (jax.jit(f, static_argnames='n')) so it stays a Python value; "
        "key dicts and caches by Python values (shapes, settings), never by traced arrays."
    ): (
        "把这个参数标记为静态（jax.jit(f, static_argnames='n')），让它保持为 Python 值；dict 和缓存"
        "要用 Python 值（shape、配置项）作键，绝不要用被追踪的数组。"
    ),
    (
        "A jitted function used a setting it takes as an argument (a flag such as `inference` or "
        "`training`, or a size such as `max_steps`) in `if`, `while`, bool() or int()."
    ): (
        "经过 jit 的函数把一个作为参数传入的配置项（例如 `inference`、`training` 这样的开关，或 "
        "`max_steps` 这样的大小）用在了 `if`、`while`、bool() 或 int() 中。"
    ),
    # static_arguments: cause
    (
        "Under jit every argument is a tracer, flags and sizes too: it has a shape and dtype but "
        "no value, so Python cannot choose a branch or a size from it."
    ): (
        "在 jit 下每个参数都是 tracer，开关和大小也不例外：它只有 shape 和 dtype，没有具体的值，"
        "所以 Python 无法据此选择分支或确定大小。"
    ),
    # static_arguments: fix
    (
        "Mark the setting static: jax.jit(f, static_argnames='inference'), or (Equinox, Flax) keep "
        "it in a static field, so that each value compiles its own program; use jax.lax.cond only "
        "when the condition really is data."
    ): (
        "把这个配置项标记为静态：jax.jit(f, static_argnames='inference')，或者（Equinox、Flax）"
        "把它放在静态字段里，这样每个取值各自编译一个程序；只有当条件确实是数据时才使用 "
        "jax.lax.cond。"
    ),
    # python_control_flow: scenario
    (
        "A jitted function used `if`, `while`, `and`/`or` or `assert` on a value computed from its "
        "arguments."
    ): ("经过 jit 的函数对一个由其参数计算得到的值使用了 `if`、`while`、`and`/`or` 或 `assert`。"),
    # python_control_flow: cause
    (
        "Python needs a real True or False to choose a branch, but under jit the value is a "
        "tracer, which has a shape and dtype but no value yet."
    ): (
        "Python 需要一个真正的 True 或 False 来选择分支，但在 jit 下这个值是 tracer，它只有 shape "
        "和 dtype，还没有具体的值。"
    ),
    # python_control_flow: fix
    (
        "Choose values with jnp.where, branches with jax.lax.cond or jax.lax.switch, and loop with "
        "jax.lax.while_loop; if the argument is a setting, not data, mark it static "
        "(static_argnames=...)."
    ): (
        "用 jnp.where 选择值，用 jax.lax.cond 或 jax.lax.switch 选择分支，用 jax.lax.while_loop 写"
        "循环；如果这个参数是配置项而不是数据，就把它标记为静态（static_argnames=...）。"
    ),
    # python_control_flow: cause
    (
        "Python needs a real True or False (the `bool` function) to choose a branch, but under jit "
        "the value is a tracer, which has no value yet."
    ): (
        "Python 需要一个真正的 True 或 False（即 `bool` 函数）来选择分支，但在 jit 下这个值是 trace"
        "r，还没有具体的值。"
    ),
    # python_control_flow: scenario
    (
        "A jitted function used a traced value as a Python int: a list or tuple index, range(n), "
        "or a size."
    ): (
        "经过 jit 的函数把一个被追踪的值当作 Python int 使用：用作列表或元组的索引、range(n) 的参数"
        "，或者某个大小。"
    ),
    # python_control_flow: cause
    (
        "Python asks the value for an int (`__index__`), but under jit it is a tracer with no "
        "value yet."
    ): ("Python 向这个值索取一个 int（`__index__`），但在 jit 下它是一个还没有具体值的 tracer。"),
    # python_control_flow: fix
    (
        "Index an array instead of a list (jnp.asarray(items)[i]), loop with jax.lax.fori_loop "
        "instead of range(n), or mark the argument static (static_argnames=...)."
    ): (
        "改为对数组而不是列表做索引（jnp.asarray(items)[i]），用 jax.lax.fori_loop 代替 range(n) 写"
        "循环，或者把该参数标记为静态（static_argnames=...）。"
    ),
    # python_control_flow: scenario
    (
        "A transformed function passed a traced value to NumPy (np.asarray, np.sin, ...) or "
        "another library that needs a concrete array."
    ): (
        "经过变换的函数把一个被追踪的值传给了 NumPy（np.asarray、np.sin 等）或其他需要具体数组的库"
        "。"
    ),
    # python_control_flow: cause
    (
        "NumPy needs real numbers, and a tracer cannot become a numpy.ndarray while JAX is tracing."
    ): ("NumPy 需要真实的数值，而在 JAX 追踪期间，tracer 无法变成 numpy.ndarray。"),
    # python_control_flow: fix
    (
        "Use jax.numpy instead of numpy inside jit, grad and vmap; run unavoidable host code "
        "through jax.pure_callback, and print with jax.debug.print."
    ): (
        "在 jit、grad 和 vmap 内部用 jax.numpy 代替 numpy；无法避免的主机端代码通过 jax.pure_callba"
        "ck 运行，打印则用 jax.debug.print。"
    ),
    # boolean_masks: scenario
    (
        "A jitted function called jnp.nonzero, jnp.argwhere, jnp.where(mask) or jnp.unique without "
        "size=, or indexed with a boolean mask."
    ): (
        "经过 jit 的函数在没有传入 size= 的情况下调用了 jnp.nonzero、jnp.argwhere、jnp.where(mask) "
        "或 jnp.unique，或者用布尔掩码做了索引。"
    ),
    # boolean_masks: cause
    (
        "The number of results is the number of True entries, which is unknown while tracing; jit "
        "needs every shape fixed in advance."
    ): ("结果的个数等于 True 元素的个数，这在追踪时是未知的；而 jit 要求所有 shape 都事先固定。"),
    # boolean_masks: fix
    (
        "Pass a static bound: jnp.nonzero(mask, size=k, fill_value=...); or keep the shape fixed "
        "with jnp.where(mask, x, 0) and reductions with where=."
    ): (
        "传入一个静态上界：jnp.nonzero(mask, size=k, fill_value=...)；或者用 jnp.where(mask, x, 0) "
        "以及带 where= 的归约来保持 shape 固定。"
    ),
    # static_arguments: scenario
    (
        "A jitted function built an array whose shape (or axis) comes from an argument, such as "
        "jnp.zeros(n)."
    ): ("经过 jit 的函数构造了一个 shape（或轴）来自参数的数组，例如 jnp.zeros(n)。"),
    # static_arguments: cause
    (
        "jit compiles for fixed shapes, but the size is a traced argument whose value is unknown "
        "while tracing."
    ): ("jit 针对固定的 shape 进行编译，但这个大小是一个被追踪的参数，它的值在追踪时是未知的。"),
    # static_arguments: fix
    (
        "Mark the size argument static: jax.jit(f, static_argnames='n'), so each new size compiles "
        "once; or pass an array of the right shape instead."
    ): (
        "把表示大小的参数标记为静态：jax.jit(f, static_argnames='n')，这样每个新的大小只编译一次；"
        "或者改为传入一个 shape 正确的数组。"
    ),
    # static_objects: scenario
    (
        "A value passed as a static argument of jit (static_argnums or static_argnames) cannot be "
        "hashed: a list, a dict, an array, or an object such as a plain @dataclass (whose __hash__ "
        "is None) or one holding a list."
    ): (
        "作为 jit 的静态参数（static_argnums 或 static_argnames）传入的值无法被哈希：它是列表、字典"
        "、数组，或是某个对象，例如普通的 @dataclass（其 __hash__ 为 None）或持有列表的对象。"
    ),
    # static_objects: cause
    (
        "jit looks static arguments up in its compile cache by hash and equality, so each must be "
        "hashable, and equal values must mean the same program; a static object changed after a "
        "call is not seen (jit runs the program of its old value)."
    ): (
        "jit 按哈希值和相等性在编译缓存中查找静态参数，因此每个静态参数都必须可哈希，而且相等的值必"
        "须对应同一个程序；静态对象在调用之后被修改，jit 是看不到的（它运行的仍是旧值对应的程序）。"
    ),
    # static_objects: fix
    (
        "Pass an immutable, value-hashed object: a tuple instead of a list or dict, a "
        "@dataclass(frozen=True) or NamedTuple instead of a config class. Pass arrays and numbers "
        "as ordinary traced arguments, or make the object a pytree (jaxpurity.dataclass, with "
        "static_field for the settings that choose code)."
    ): (
        "传入不可变、按值哈希的对象：用元组代替列表或字典，用 @dataclass(frozen=True) 或 NamedTuple"
        " 代替配置类。数组和数值作为普通的被追踪参数传入，或者把对象做成 pytree（jaxpurity.dataclas"
        "s，对决定代码走向的配置项使用 static_field）。"
    ),
    # static_objects (a static argument that cannot be compared): scenario
    (
        "jit compared a static argument with the one it cached (on a later call) and the "
        "comparison raised: an object whose __eq__ compares an array field ('The truth value of an "
        "array with more than one element is ambiguous'), or one that cannot be compared with the "
        "other's type."
    ): (
        "jit（在后来的一次调用中）把静态参数与缓存中的那个相比较，而比较本身出错了：对象的 __eq__ "
        "比较了一个数组字段（'The truth value of an array with more than one element is ambiguous'"
        "），或者它无法与另一个对象的类型相比较。"
    ),
    # static_objects (a static argument that cannot be compared): cause
    (
        "jit finds a compiled program by the static arguments' hash and then ==, which must "
        "return one bool; a dataclass's generated __eq__ compares its fields as a tuple, and an "
        "array field makes that comparison an array."
    ): (
        "jit 先按静态参数的哈希值、再用 == 查找编译好的程序，而 == 必须返回单个 bool；"
        "dataclass 生成的 __eq__ 把各字段当作元组来比较，数组字段会让这次比较的结果变成一个数组。"
    ),
    # static_objects (a static argument that cannot be compared): fix
    (
        "Keep arrays out of static arguments: pass them as ordinary traced arguments (or make the "
        "object a pytree, with jaxpurity.dataclass, whose array fields are leaves); give a static "
        "object fields that compare as one bool (numbers, strings, tuples)."
    ): (
        "不要把数组放进静态参数：把它们作为普通的被追踪参数传入（或者用 jaxpurity.dataclass 把对象"
        "做成 pytree，数组字段就成了叶子）；静态对象的字段应能比较出单个 bool（数值、字符串、元组）"
        "。"
    ),
    # boolean_masks: scenario
    ("A jitted function indexed an array with a boolean mask, as in x[x > 0]."): (
        "经过 jit 的函数用布尔掩码对数组做了索引，例如 x[x > 0]。"
    ),
    # boolean_masks: cause
    (
        "The result's length is the number of True entries, which is unknown while tracing; jit "
        "needs every shape fixed in advance."
    ): ("结果的长度等于 True 元素的个数，这在追踪时是未知的；而 jit 要求所有 shape 都事先固定。"),
    # boolean_masks: fix
    (
        "Keep the shape fixed: jnp.where(mask, x, 0), reductions with where= (jnp.sum(x, "
        "where=mask)), or jnp.nonzero(mask, size=k, fill_value=...) with a static bound k."
    ): (
        "保持 shape 固定：使用 jnp.where(mask, x, 0)、带 where= 的归约（jnp.sum(x, where=mask)），"
        "或者带静态上界 k 的 jnp.nonzero(mask, size=k, fill_value=...)。"
    ),
    # leak_from_grad_vmap: scenario
    (
        "Code called float(), int() or complex() on a value computed under jax.grad or jax.vmap: "
        "inside the function, or later, on a value it saved (a logged loss)."
    ): (
        "代码对一个在 jax.grad 或 jax.vmap 下计算出的值调用了 float()、int() 或 complex()：要么是在"
        "函数内部，要么是之后对函数保存下来的值（例如记录下来的损失值）调用。"
    ),
    # leak_from_grad_vmap: cause
    (
        "Under grad and vmap every value computed from the arguments is a tracer, and one saved "
        "outside the function stays a tracer after the transformation returns: it has a shape and "
        "a dtype but no value to convert."
    ): (
        "在 grad 和 vmap 下，由参数计算出的每个值都是 tracer；保存到函数之外的值在变换返回后依然是 "
        "tracer：它有 shape 和 dtype，却没有可供转换的值。"
    ),
    # leak_from_grad_vmap: fix
    (
        "Return the value instead: get side results out of grad with jax.value_and_grad or "
        "has_aux=True, and return extra outputs from the vmapped function. To print a value inside "
        "the function, use jax.debug.print."
    ): (
        "改为返回这个值：用 jax.value_and_grad 或 has_aux=True 从 grad 中取出附带结果，并让经过 vma"
        "p 的函数把额外的输出一并返回。要在函数内部打印某个值，请使用 jax.debug.print。"
    ),
    # static_arguments: scenario
    (
        "A jitted function needed a concrete Python value (a size for jnp.arange, a float() or "
        "int()) from a traced argument."
    ): (
        "经过 jit 的函数需要从一个被追踪的参数得到具体的 Python 值（jnp.arange 的大小、float() 或 i"
        "nt() 的结果）。"
    ),
    # static_arguments: cause
    (
        "Under jit, arguments are tracers: JAX knows their shape and dtype but not their value, so "
        "anything needed while tracing cannot depend on them."
    ): (
        "在 jit 下，参数都是 tracer：JAX 知道它们的 shape 和 dtype，但不知道它们的值，所以追踪时需"
        "要用到的任何东西都不能依赖于它们。"
    ),
    # static_arguments: fix
    (
        "Mark the argument static (jax.jit(f, static_argnames=...)) when it is a setting such as a "
        "size, or rewrite so that only shapes, not values, decide what the code does."
    ): (
        "如果该参数是大小之类的配置项，就把它标记为静态（jax.jit(f, static_argnames=...)）；或者改"
        "写代码，让决定代码行为的只有 shape，而不是值。"
    ),
    # keys_in_vmap_and_scan: scenario
    (
        "With key-reuse checking on, the body of a lax.scan, fori_loop or while_loop drew random "
        "numbers from a key it closed over, or carried a key without returning a fresh one."
    ): (
        "在开启密钥复用检查时，lax.scan、fori_loop 或 while_loop 的循环体用闭包捕获的随机密钥（key"
        "）生成随机数，或者在 carry 中携带密钥却没有返回新的密钥。"
    ),
    # keys_in_vmap_and_scan: cause
    (
        "A loop body is traced once and runs at every step: a key from outside the loop, or a "
        "carried key that comes back unchanged, gives the same numbers at every step."
    ): (
        "循环体只追踪一次，却在每一步都运行：来自循环外部的密钥，或者在 carry 中原样传回的密钥，每"
        "一步都会生成相同的随机数。"
    ),
    # keys_in_vmap_and_scan: fix
    (
        "Carry the key and split it in the body (`key, sub = jax.random.split(key)`, return the "
        "new key), or pass jax.random.split(key, n) as the scan's xs, or use "
        "jax.random.fold_in(key, i) with the step number."
    ): (
        "把密钥放进 carry，并在循环体中拆分它（`key, sub = jax.random.split(key)`，然后返回新的密钥"
        "）；或者把 jax.random.split(key, n) 作为 scan 的 xs 传入；或者用 jax.random.fold_in(key, i"
        ") 把步数混入密钥。"
    ),
    # nan_gradients: scenario
    (
        "With jax_debug_nans on (jax.debug_nans(True), jax.config.update('jax_debug_nans', True) "
        "or JAX_DEBUG_NANS=True), an operation made a nan (or, with jax_debug_infs, an inf), in "
        "the forward pass or in the backward pass of jax.grad."
    ): (
        "在开启 jax_debug_nans 时（jax.debug_nans(True)、jax.config.update('jax_debug_nans', True) "
        "或 JAX_DEBUG_NANS=True），某个运算在前向计算中或 jax.grad 的反向计算中产生了 nan（开启 jax"
        "_debug_infs 时则是 inf）。"
    ),
    # nan_gradients: cause
    (
        "The message names the first operation whose output was nan, and the traceback ends at the "
        "line of your code it came from. Under grad the usual source is a jnp.where or a mask that "
        "hides a bad input from the value but not from the gradient: both sides are "
        "differentiated, and 0 times the discarded side's infinite derivative is nan (sqrt or log "
        "at 0, the norm of a zero vector, x / 0)."
    ): (
        "错误信息会指出第一个输出 nan 的运算，回溯（traceback）的最后一行就是它在你的代码中的出处。"
        "在 grad 下，最常见的根源是 jnp.where 或掩码——它们能让值避开坏输入，梯度却避不开：两侧都会"
        "被求导，而 0 乘以被丢弃一侧的无穷大导数就是 nan（例如 0 处的 sqrt 或 log、零向量的范数、x "
        "/ 0）。"
    ),
    # nan_gradients: fix
    (
        "Keep bad inputs away from the unsafe function with a second where: jnp.where(ok, "
        "jnp.sqrt(jnp.where(ok, x, 1.0)), 0.0), and the same for log, division and norms. Where "
        "the message says the de-optimized function made no invalid values, run the step without "
        "jit (jax.disable_jit()) to find the operation; before JAX 0.5.1 that paragraph is printed "
        "even when the nan is real."
    ): (
        "再套一层 where，让坏输入根本到不了不安全的函数：jnp.where(ok, jnp.sqrt(jnp.where(ok, x, 1."
        "0)), 0.0)，log、除法和范数也照此处理。如果错误信息说去优化（de-optimized）后的函数没有产生"
        "无效值，就在不使用 jit 的情况下（jax.disable_jit()）运行这一步来找出该运算；在 JAX 0.5.1 "
        "之前，即使 nan 真实存在，也会打印这一段话。"
    ),
    # differentiating_loops: scenario
    (
        "jax.grad (or vjp, or value_and_grad) went through a lax.while_loop, or a lax.fori_loop "
        "whose start or stop is traced (an argument under jit, or a value computed from one)."
    ): (
        "用 jax.grad（或 vjp、value_and_grad）求导的计算中经过了 lax.while_loop，或者经过了起点或终"
        "点被追踪的 lax.fori_loop（起点或终点是 jit 下的参数，或由参数计算出的值）。"
    ),
    # differentiating_loops: cause
    (
        "Reverse mode stores every step's intermediate values and walks back through them; a loop "
        "whose trip count is known only when it runs gives it no fixed-size place to store them, "
        "so JAX refuses. Forward mode (jax.jvp, jax.jacfwd) works."
    ): (
        "反向模式会保存每一步的中间值，再逆序遍历它们；迭代次数要到运行时才知道的循环，无法为这些中"
        "间值提供固定大小的存储空间，所以 JAX 拒绝求导。前向模式（jax.jvp、jax.jacfwd）则可以正常工"
        "作。"
    ),
    # differentiating_loops: fix
    (
        "Give the loop a bound known while tracing: fori_loop with Python-int start and stop (it "
        "becomes a scan), or lax.scan over a static maximum number of steps with a mask "
        "(jnp.where(i < n, step(x), x)); use jax.checkpoint on the body if the stored steps take "
        "too much memory."
    ): (
        "给循环一个在追踪时已知的上界：使用起点和终点都是 Python int 的 fori_loop（它会变成 scan）"
        "，或者用 lax.scan 跑静态的最大步数并配合掩码（jnp.where(i < n, step(x), x)）；如果保存的各"
        "步占用内存过多，就对循环体使用 jax.checkpoint。"
    ),
    # frozen_randomness: scenario
    (
        "With key-reuse checking on (jax.debug_key_reuse(True) or the jax_debug_key_reuse config), "
        "a PRNG key was used twice."
    ): (
        "在开启密钥复用检查时（jax.debug_key_reuse(True) 或 jax_debug_key_reuse 配置项），某个 PRNG"
        " 密钥被使用了两次。"
    ),
    # frozen_randomness: cause
    (
        "JAX random numbers are a pure function of the key: reusing a key, also across the steps "
        "of a loop, repeats the same 'random' numbers."
    ): (
        "JAX 的随机数是密钥的纯函数：复用同一个密钥（包括在循环的各步之间复用）会重复生成同样的“随"
        "机”数。"
    ),
    # frozen_randomness: fix
    (
        "Split before every use: `key, sub = jax.random.split(key)`, draw with sub and keep key "
        "for later; in loops carry the key and split it every step."
    ): (
        "每次使用前都先拆分：`key, sub = jax.random.split(key)`，用 sub 生成随机数，把 key 留到以后"
        "再用；在循环中把密钥放进 carry，并在每一步拆分它。"
    ),
    # side_effects_across_devices: scenario
    (
        "A function run on several devices (shard_map, pmap, or jit over sharded inputs) used "
        "jax.debug.print(..., ordered=True) or another ordered effect."
    ): (
        "在多个设备上运行的函数（shard_map、pmap，或作用于分片输入的 jit）使用了 jax.debug.print(.."
        "., ordered=True) 或其他有序副作用。"
    ),
    # side_effects_across_devices: cause
    (
        "An ordered effect must happen in one sequence, but each device runs the program on its "
        "own, and no single order exists across devices."
    ): ("有序副作用必须按单一的顺序发生，但每个设备各自独立地运行程序，跨设备并不存在唯一的顺序。"),
    # side_effects_across_devices: fix
    (
        "Drop ordered=True and tell the lines apart instead (print jax.lax.axis_index('d') with "
        "the value, then sort), or return the values and print them after the call."
    ): (
        "去掉 ordered=True，改为区分各行输出（把 jax.lax.axis_index('d') 与值一起打印，然后排序），"
        "或者把这些值返回，在调用结束后再打印。"
    ),
    # runtime_errors: scenario
    (
        "checkify (jax.experimental.checkify) found an index out of bounds, a NaN, a division by "
        "zero or a failed checkify.check, and err.throw() raised it."
    ): (
        "checkify（jax.experimental.checkify）发现了越界索引、NaN、除以零或未通过的 checkify.check"
        "，并由 err.throw() 抛出。"
    ),
    # runtime_errors: cause
    (
        "A compiled program cannot raise: without checkify an index out of range is clamped (a "
        "read) or dropped (a write), and a NaN flows on silently. checkify adds the checks to the "
        "program and returns their result as a value, which throw() raises after the program ran."
    ): (
        "编译后的程序无法抛出异常：没有 checkify 时，越界索引在读取时会被截断到边界，在写入时会被丢"
        "弃，NaN 也会悄无声息地继续传播。checkify 把这些检查加入程序，并把检查结果作为一个值返回，"
        "程序运行结束后再由 throw() 抛出。"
    ),
    # runtime_errors: fix
    (
        "Fix the value the message names: clamp or validate indices before indexing (jnp.clip, or "
        ".at[i].get(mode='fill', fill_value=...) where out of range is expected), and keep inputs "
        "of log, sqrt and division in their domain. The message 'at mapped index i' names the "
        "failing element of a vmap."
    ): (
        "修复错误信息指出的那个值：索引前先截断或校验索引（jnp.clip；如果越界本就在预期之中，可用 ."
        "at[i].get(mode='fill', fill_value=...)），并让 log、sqrt 和除法的输入保持在各自的定义域内"
        "。错误信息中的“at mapped index i”指出的是 vmap 中出错的那个元素。"
    ),
    # runtime_errors: scenario
    (
        "A function that calls checkify.check was run under jit (or scan, vmap, remat...) without "
        "checkify.checkify around it."
    ): (
        "调用了 checkify.check 的函数在 jit（或 scan、vmap、remat 等）下运行，但外面没有套上 checki"
        "fy.checkify。"
    ),
    # runtime_errors: cause
    (
        "checkify.check has no meaning inside a compiled program on its own: only "
        "checkify.checkify turns the check into an error value that leaves the program."
    ): (
        "在编译后的程序中，checkify.check 本身没有意义：只有 checkify.checkify 才会把检查转换成一个"
        "能从程序中传出的错误值。"
    ),
    # runtime_errors: fix
    (
        "Wrap the function: err, out = checkify.checkify(f)(x) (or jax.jit(checkify.checkify(f))), "
        "then err.throw() outside jit; use checkify.debug_check for a check that may be dropped "
        "when not checkified."
    ): (
        "把函数包装起来：err, out = checkify.checkify(f)(x)（或 jax.jit(checkify.checkify(f))），然"
        "后在 jit 之外调用 err.throw()；如果某个检查在没有被 checkify 时可以直接略过，就用 checkify"
        ".debug_check。"
    ),
    # retracing_storms: scenario
    (
        "A call inside jax.no_tracing(True) (the jax_no_tracing config) needed a new trace: jit "
        "had not seen the function, or the arguments' types, before."
    ): (
        "在 jax.no_tracing(True)（jax_no_tracing 配置项）中的某次调用需要一次新的追踪：jit 之前没有"
        "见过这个函数，或者没有见过这些参数类型。"
    ),
    # retracing_storms: cause
    (
        "jit reuses a compiled program only for the same function object and the same argument "
        "types (shape, dtype, weak type, static values); a jit or partial created in a loop, or an "
        "argument whose type changes, traces and compiles again."
    ): (
        "只有函数对象相同、参数类型（shape、dtype、弱类型、静态参数的值）也相同时，jit 才会复用已编"
        "译的程序；在循环中创建的 jit 或 partial，或者类型发生变化的参数，都会导致重新追踪和编译。"
    ),
    # retracing_storms: fix
    (
        "jit once, outside the loop; pass changing values as arguments, each with the same type "
        "every call (a Python float or a jnp.float32, not both), and pad inputs to a few fixed "
        "shapes; create arrays before entering the no_tracing block."
    ): (
        "在循环外只 jit 一次；把会变化的值作为参数传入，每次调用时每个参数的类型保持一致（要么是 Py"
        "thon float，要么是 jnp.float32，不要混用），并把输入填充成少数几种固定的 shape；在进入 no_"
        "tracing 块之前就创建好数组。"
    ),
    # retracing_storms: scenario
    (
        "A function wrapped in jaxpurity.count_traces(max_traces=...) was traced again with the "
        "same argument types: a new function object (a lambda or partial made in a loop) jitted on "
        "each call."
    ): (
        "被 jaxpurity.count_traces(max_traces=...) 包装的函数在参数类型相同的情况下又被追踪了一次："
        "每次调用时被 jit 的都是一个新的函数对象（在循环中创建的 lambda 或 partial）。"
    ),
    # retracing_storms: cause
    (
        "jit's cache is keyed by the function object: jax.jit(...) or a partial or lambda created "
        "anew on every call misses the cache every time, however alike."
    ): (
        "jit 的缓存以函数对象为键：每次调用都重新创建的 jax.jit(...)、partial 或 lambda，无论彼此多"
        "么相似，每次都会缓存未命中。"
    ),
    # retracing_storms: fix
    (
        "Create the jitted function once (at module level, or before the loop) and call that, "
        "passing what changes as arguments."
    ): (
        "只创建一次经过 jit 的函数（在模块顶层，或在循环之前），然后调用它，把会变化的部分作为参数"
        "传入。"
    ),
    # retracing_storms: scenario
    ("JAX logged why a jitted call traced again (jax_explain_cache_misses)."): (
        "JAX 在日志中记录了一次 jit 调用为何重新追踪（jax_explain_cache_misses）。"
    ),
    # retracing_storms: cause
    (
        "jit traced and compiled anew: a function it never saw (often one re-defined in a loop: "
        "'seen another function defined on the same line'), or new argument types; the log names "
        "the argument and the change."
    ): (
        "jit 重新进行了追踪和编译：原因是遇到了它从未见过的函数（常常是在循环中被重新定义的函数：“s"
        "een another function defined on the same line”），或者新的参数类型；日志会指出是哪个参数、"
        "发生了什么变化。"
    ),
    # retracing_storms: fix
    (
        "jit once, outside the loop; keep each argument's shape, dtype and weak type the same from "
        "call to call, and static arguments to a few values."
    ): (
        "在循环外只 jit 一次；让每个参数的 shape、dtype 和弱类型在各次调用之间保持不变，并让静态参"
        "数只取少数几个值。"
    ),
    # callbacks: scenario
    (
        "jax.grad (or jvp, vjp) went through a jax.pure_callback or a jax.experimental.io_callback."
    ): (
        "用 jax.grad（或 jvp、vjp）求导的计算中经过了 jax.pure_callback 或 jax.experimental.io_call"
        "back。"
    ),
    # callbacks: cause
    (
        "JAX differentiates each operation it knows; a callback runs Python code it cannot see "
        "into, so it has no derivative rule."
    ): (
        "JAX 能对它认识的每个运算求导；而回调运行的是 JAX 无法看到内部的 Python 代码，所以它没有求"
        "导规则。"
    ),
    # callbacks: fix
    (
        "Give the callback a derivative with jax.custom_jvp (or jax.custom_vjp), computing the "
        "tangent with JAX or another callback; for a callback kept only for its side effect "
        "(logging), use jax.debug.callback, which grad goes through."
    ): (
        "用 jax.custom_jvp（或 jax.custom_vjp）为回调定义导数，用 JAX 或另一个回调计算切向量；如果"
        "回调只是为了副作用（记录日志）而保留，就改用 jax.debug.callback，grad 可以直接穿过它。"
    ),
    # callbacks: scenario
    (
        "jax.vmap went through a jax.pure_callback without vmap_method=, or through an ordered "
        "jax.experimental.io_callback."
    ): (
        "jax.vmap 经过了一个没有指定 vmap_method= 的 jax.pure_callback，或者一个有序的 jax.experime"
        "ntal.io_callback。"
    ),
    # callbacks: cause
    (
        "vmap must know how to batch your Python function: call it once per example, or once with "
        "the whole batch. An ordered io_callback promises one call after another, which a batch "
        "cannot keep."
    ): (
        "vmap 必须知道如何对你的 Python 函数做批处理：是每个样本调用一次，还是用整个批次调用一次。"
        "有序的 io_callback 承诺逐次按顺序调用，而批处理无法遵守这一承诺。"
    ),
    # callbacks: fix
    (
        "Pass vmap_method='sequential' (one call per example), 'expand_dims' or 'broadcast_all' "
        "(one call with the batch, which the function must handle) to jax.pure_callback; use an "
        "unordered io_callback, or jax.debug.callback, under vmap."
    ): (
        "给 jax.pure_callback 传入 vmap_method='sequential'（每个样本调用一次）、'expand_dims' 或 '"
        "broadcast_all'（用整个批次调用一次，函数必须能处理批次）；在 vmap 下请使用无序的 io_callba"
        "ck 或 jax.debug.callback。"
    ),
    # buffer_donation: scenario
    (
        "Code used an array after passing it to a jax.jit function with donate_argnums (or "
        "donate_argnames), or after calling .delete() on it."
    ): (
        "代码在把一个数组传给带 donate_argnums（或 donate_argnames）的 jax.jit 函数之后，或在对它调"
        "用 .delete() 之后，又使用了它。"
    ),
    # buffer_donation: cause
    (
        "Donating an argument gives its memory to the function's outputs: XLA may write the result "
        "there, so JAX marks the argument deleted, and reading it or passing it again fails."
    ): (
        "捐赠一个参数，就是把它的内存交给函数的输出：XLA 可能把结果写到那里，因此 JAX 会把该参数标"
        "记为已删除，再读取它或再次传入它都会失败。"
    ),
    # buffer_donation: fix
    (
        "Rebind the name to the result (params = step(params, x)) and use only the new value; take "
        "what you need from the old one inside the function or before the call, or leave that "
        "argument out of donate_argnums."
    ): (
        "把变量名重新绑定到结果上（params = step(params, x)），之后只使用新值；需要从旧值中获取的东"
        "西，要在函数内部或调用之前取出，或者不要把该参数放进 donate_argnums。"
    ),
    # buffer_donation: scenario
    (
        "A jax.jit function with donate_argnums was compiled, and JAX warned that it could not use "
        "some donated arguments."
    ): ("编译带 donate_argnums 的 jax.jit 函数时，JAX 警告说有些被捐赠的参数无法使用。"),
    # buffer_donation: cause
    (
        "A donated buffer can only hold an output of the same size (before JAX 0.8.0: the same "
        "shape and dtype), and an argument the function does not use is dropped first; so nothing "
        "was reused, and the memory was not saved. Before jaxlib 0.3.24 the CPU backend could not "
        "donate at all ('Donation is not implemented for cpu')."
    ): (
        "被捐赠的缓冲区只能存放大小相同的输出（JAX 0.8.0 之前要求 shape 和 dtype 都相同），而函数没"
        "有用到的参数会先被丢弃；所以没有任何缓冲区被复用，内存也没有节省下来。在 jaxlib 0.3.24 之"
        "前，CPU 后端完全不支持缓冲区捐赠（“Donation is not implemented for cpu”）。"
    ),
    # buffer_donation: fix
    (
        "Donate only arguments that have an output of the same shape and dtype (the new params, "
        "the new optimizer state), return the updated value, and check with x.is_deleted() after "
        "the call."
    ): (
        "只捐赠那些有相同 shape 和 dtype 的输出与之对应的参数（新的 params、新的优化器状态），返回"
        "更新后的值，并在调用后用 x.is_deleted() 检查。"
    ),
    # cond_branch_types: scenario
    ("jaxpurity's cond or switch found branches that return different types."): (
        "jaxpurity 的 cond 或 switch 发现各分支返回的类型不同。"
    ),
    # cond_branch_types: cause
    (
        "cond and switch have one output, so every branch must return the same pytree with the "
        "same shape and dtype at each leaf; the message lists each leaf that differs, by its path."
    ): (
        "cond 和 switch 只有一个输出，所以每个分支都必须返回相同的 pytree，且每个叶子的 shape 和 dt"
        "ype 都相同；错误信息会按路径列出每个不一致的叶子。"
    ),
    # cond_branch_types: fix
    (
        "Follow the message's 'How to fix' line for each leaf: usually cast with .astype(...), or "
        "build placeholders with jnp.zeros_like."
    ): (
        "按照错误信息中每个叶子的“How to fix”一行来修复：通常是用 .astype(...) 转换类型，或者用 jnp"
        ".zeros_like 构造占位值。"
    ),
    # loop_carry_types: scenario
    (
        "A loop body or a Stateful step returned a carry (state) of another type than the one it "
        "was given; jaxpurity checked it."
    ): (
        "循环体或 Stateful 的步函数返回的 carry（状态）与传入时的类型不同；这是 jaxpurity 检查出来"
        "的。"
    ),
    # loop_carry_types: cause
    (
        "The carry feeds the next step, so its pytree structure, shapes and dtypes must stay the "
        "same (under jit, a state that changes type would also recompile on every call); the "
        "message lists each leaf that changed."
    ): (
        "carry 会作为下一步的输入，所以它的 pytree 结构、shape 和 dtype 都必须保持不变（在 jit 下，"
        "类型不断变化的状态还会导致每次调用都重新编译）；错误信息会列出每个发生变化的叶子。"
    ),
    # loop_carry_types: fix
    (
        "Follow the message's 'How to fix' line for each leaf: give the initial value its final "
        "dtype (jnp.zeros((), jnp.float32), not 0), and accumulate in a dtype wide enough for the "
        "sum before casting the result."
    ): (
        "按照错误信息中每个叶子的“How to fix”一行来修复：让初始值一开始就使用最终的 dtype（jnp.zero"
        "s((), jnp.float32)，而不是 0），并用足以容纳累加和的 dtype 进行累加，最后再转换结果的类型"
        "。"
    ),
    # static_arguments: scenario
    (
        "A function wrapped in jaxpurity.count_traces(max_traces=...) was traced more times than "
        "allowed."
    ): ("被 jaxpurity.count_traces(max_traces=...) 包装的函数被追踪的次数超过了允许的上限。"),
    # static_arguments: cause
    (
        "jit traces and compiles again whenever an argument's shape, dtype or weak type changes, a "
        "static argument takes a new value, or a new object is passed as a static argument; the "
        "message names each argument that changed."
    ): (
        "每当某个参数的 shape、dtype 或弱类型发生变化、某个静态参数取了新值，或者有新的对象作为静态"
        "参数传入时，jit 都会重新追踪和编译；错误信息会指出每个发生变化的参数。"
    ),
    # static_arguments: fix
    (
        "Follow the message's 'To avoid the retrace' line: keep shapes and dtypes fixed (pad or "
        "bucket), pass arrays rather than Python scalars, and keep static arguments to a few "
        "values (a number that is data can be passed as an array instead; a size or an axis must "
        "stay static)."
    ): (
        "按照错误信息中“To avoid the retrace”一行来修复：保持 shape 和 dtype 固定（填充或分桶），传"
        "入数组而不是 Python 标量，并让静态参数只取少数几个值（作为数据的数值可以改成数组传入；而大"
        "小或轴必须保持静态）。"
    ),
    # cond_branch_types: scenario
    ("jax.lax.cond or jax.lax.switch was given branches that return different types."): (
        "传给 jax.lax.cond 或 jax.lax.switch 的各分支返回的类型不同。"
    ),
    # cond_branch_types: cause
    (
        "cond and switch have one output, so every branch must return the same pytree with the "
        "same shape and dtype at each leaf: 0 and 0.0, or a float and an int32 array, do not match."
    ): (
        "cond 和 switch 只有一个输出，所以每个分支都必须返回相同的 pytree，且每个叶子的 shape 和 dt"
        "ype 都相同：0 和 0.0，或者一个 float 和一个 int32 数组，都不匹配。"
    ),
    # cond_branch_types: fix
    (
        "Make every branch return the same structure and dtypes: cast with .astype(...), write the "
        "dtype explicitly (jnp.zeros((), jnp.float32)) rather than a bare 0, and build "
        "placeholders with jnp.zeros_like."
    ): (
        "让每个分支返回相同的结构和 dtype：用 .astype(...) 转换类型，显式写出 dtype（jnp.zeros((), "
        "jnp.float32)）而不是只写一个 0，并用 jnp.zeros_like 构造占位值。"
    ),
    # loop_carry_types: scenario
    (
        "A scan, while_loop or fori_loop body returned a carry whose shape, dtype or pytree "
        "structure differs from the initial carry."
    ): (
        "scan、while_loop 或 fori_loop 的循环体返回的 carry（循环携带值），其 shape、dtype 或 pytre"
        "e 结构与初始 carry 不同。"
    ),
    # loop_carry_types: cause
    (
        "The carry feeds the next step, so its type must stay fixed; the usual trips are an "
        "integer start (jnp.int32(0)) updated with floats, or a carry that grows."
    ): (
        "carry 会作为下一步的输入，所以它的类型必须保持不变；常见的坑是：初始值是整数（jnp.int32(0)"
        "），却用浮点数去更新它，或者 carry 在不断变大。"
    ),
    # loop_carry_types: fix
    (
        "Start the carry with the dtype it will have, written explicitly (jnp.zeros((), "
        "jnp.float32) or jnp.zeros(shape, dtype), not a bare 0 or 0.0), cast updates with "
        ".astype(init.dtype), and keep the same tuple or dict structure."
    ): (
        "一开始就让 carry 使用它最终的 dtype，并显式写出（jnp.zeros((), jnp.float32) 或 jnp.zeros(s"
        "hape, dtype)，而不是只写 0 或 0.0），用 .astype(init.dtype) 转换更新值的类型，并保持相同的"
        "元组或字典结构。"
    ),
    # inplace_updates: scenario
    ("Code assigned into a JAX array, as in x[i] = v, x[i] += v or x.at[i] = v."): (
        "代码对 JAX 数组做了赋值，例如 x[i] = v、x[i] += v 或 x.at[i] = v。"
    ),
    # inplace_updates: cause
    ("JAX arrays are immutable values, so they cannot be changed in place."): (
        "JAX 数组是不可变的值，因此无法原地修改。"
    ),
    # inplace_updates: fix
    (
        "Build an updated copy: x = x.at[i].set(v) (or .add, .multiply, .min, .max); under jit XLA "
        "performs it in place when it can."
    ): (
        "构造一个更新后的副本：x = x.at[i].set(v)（或 .add、.multiply、.min、.max）；在 jit 下，XLA"
        " 会在可能时原地执行这一更新。"
    ),
    # inplace_updates (AttributeError): scenario
    (
        "Code called .set(v) (or .add, .multiply, ...) on a JAX array itself, as in x.set(v), "
        "rather than on x.at[i]."
    ): (
        "代码直接在 JAX 数组上调用了 .set(v)（或 .add、.multiply 等），例如 x.set(v)，而不是在 "
        "x.at[i] 上调用。"
    ),
    # inplace_updates (AttributeError): cause
    (
        "A JAX array has no update methods of its own: .set, .add and the others belong to "
        "x.at[...], which says which elements to update and returns a new array."
    ): (
        "JAX 数组本身没有更新方法：.set、.add 等方法属于 x.at[...]。x.at[...] 指明要更新哪些元素，"
        "并返回一个新数组。"
    ),
    # inplace_updates (AttributeError): fix
    (
        "Index through .at first: x = x.at[i].set(v) (x.at[:].set(v) for every element); keep the "
        "result, since x itself never changes."
    ): (
        "先通过 .at 索引：x = x.at[i].set(v)（更新全部元素用 x.at[:].set(v)）。要保留返回的结果，"
        "因为 x 本身永远不会改变。"
    ),
    # print_vs_debug_print: scenario
    (
        "A print (or logging call) inside a jitted, vmapped or differentiated function showed a "
        "tracer instead of numbers."
    ): ("在经过 jit、vmap 或求导的函数中，print（或日志调用）显示的是 tracer 而不是数值。"),
    # print_vs_debug_print: cause
    (
        "Python's print runs while JAX traces the function, once, when the values are tracers "
        "(placeholders with a shape and dtype); it does not run when the compiled function runs."
    ): (
        "Python 的 print 在 JAX 追踪函数时运行，而且只运行一次，那时的值都是 tracer（只带 shape 和 "
        "dtype 的占位符）；编译后的函数运行时，它并不会运行。"
    ),
    # print_vs_debug_print: fix
    (
        "Print run-time values with jax.debug.print('x = {}', x) (ordered=True keeps the order); "
        "or step through eagerly under jax.disable_jit()."
    ): (
        "用 jax.debug.print('x = {}', x) 打印运行时的值（ordered=True 可以保持打印顺序）；或者在 ja"
        "x.disable_jit() 下以即时（eager）模式逐步执行。"
    ),
    # The labels of an explanation (jaxpurity.explainer._explain.Explanation)
    "Error": "错误",
    "Scenario": "场景",
    "Cause": "原因",
    "Fix": "修复",
    "Read more": "详见",
    "See": "详见",
    "See also": "另见",
    "unknown": "未知",
    (
        "Not recognised: jaxpurity.explain has no entry for this error, so it cannot say what "
        "caused it."
    ): ("未能识别：jaxpurity.explain 没有这个错误的条目，所以无法说出它的原因。"),
    ("It knows {known}, and some messages of {worded}."): (
        "它认识 {known}，以及 {worded} 的部分信息。"
    ),
}
