"""What ``jaxpurity lint`` knows of a module before any rule looks at it: the analysis.

All of it read from the syntax tree, nothing imported or run. ``_module``
(:class:`~jaxpurity.linter.analysis._module.ModuleAnalysis`) is the analysis of one
module, and the place to start: which of its functions JAX traces, and how. It reads
the module's functions and what a reference names (``_functions``); what its names
stand for, imports resolved (``_names``); the JAX transformations the linter knows,
data (``_known_transforms``), and those the module applies to its functions
(``_applied_transforms``, each application a stack of ``_layers``); what annotations
say (``_annotations``); which values hold tracers and which are surely arrays
(``_taint``, with the data of ``_arrays``, and the arrays the module makes itself:
``_array_values``); what a call passes and which parameters it reaches (``_calls``);
and how traced code crosses into the other modules of the package being linted and
back (``_crossings``, with the entries of ``_package``). Which names hold host
containers (``_sequences``) and which mutable references (``_references``) it answers
for the rules. The checks read names used after they are spent (``_flow``), and
everything reads Python's syntax (``_syntax``).

Nothing here imports a rule or the driver: the rules (:mod:`jaxpurity.linter.rules`)
see the analysis through the checks' contexts (:mod:`jaxpurity.linter._context`).
"""
