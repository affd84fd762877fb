"""Meta-evaluation: do the metrics catch missing and wrong key information?

``synthetic`` makes ``missing`` / ``wrong`` variants of any response set without an LLM;
``scoring`` holds the detection scores (balanced accuracy, AUROC, F1); ``vitalerrors`` and
``factcheck`` read the two public meta-evaluation sets. ``benchmarks/metaeval.py`` runs them.
"""
