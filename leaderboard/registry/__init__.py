"""The registry of boards, languages and datasets (the tables of ``models/registry.py``),
read in one place: which board each language code feeds and the group boards (``boards``,
seeded from ``languages``), which datasets a submission is evaluated on and which boards
datasets feed (``dataset_plan``), and the protocol this deployment's suite evaluates with
(``suite``)."""
