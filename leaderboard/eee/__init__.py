"""The Every Eval Ever (EEE) format, in and out.

EuroEval (since 17.0.0) writes its results as EEE records (schema 0.2.1): one evaluation
of one model on one dataset per record, its per-iteration scores JSON-encoded in
``eval_library.additional_details.raw_results``. Glossa reads them (:mod:`.records`
turns one into the EuroEval record the importer knows) and writes every evaluation it
stores as one (:mod:`.writer`, :mod:`.export`), validated against the vendored schema
(:mod:`.schema`, ``leaderboard/schemas/eee/``).

:mod:`.records`, :mod:`.writer` and :mod:`.schema` are plain Python (no Django).
"""
