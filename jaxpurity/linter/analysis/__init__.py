"""What ``jaxpurity lint`` knows of a module before any rule looks at it: the analysis.

Read from the syntax tree alone, nothing imported or run: what names stand for
(``_names``), the module's functions (``_functions``), the JAX transformations
the linter knows (``_wrappers``) and those the module applies to its functions
(``_transformations``), what annotations say (``_annotations``), which
functions JAX traces (``_scope``), which values are tracers and which surely
arrays (``_taint``, with the data of ``_arrays``), names used after they are
spent (``_flow``), Python's syntax (``_syntax``), and how traced code crosses
into the other modules of the package being linted (``_package``). The rules
(:mod:`jaxpurity.linter.rules`) read it through the checker; nothing here
imports a rule.
"""
