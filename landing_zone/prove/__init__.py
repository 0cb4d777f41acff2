"""The SMT proofs: every request the synthesized guardrails could receive, decided by z3 (docs/PROVE.md).

``model`` (the request encoding and the shared symbols), ``perimeter`` (who a guarantee binds), ``properties`` (the
properties, one obligation each), ``run`` (solving, witnesses, the cache), ``proofs`` (the entry point over an
assembly: ``proofs_for_assembly``) and ``mutations`` (mutants of the documents the proofs must catch). z3 is imported
only inside the functions that solve, so a command that does not prove never loads it.
"""
