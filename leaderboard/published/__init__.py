"""EuroEval's published leaderboards, pure (no Django): reading a board's CSV and re-ranking
it from its summaries (``boards``), its cells as per-iteration scores (``cells``), re-ranking
a commit's boards from those (``reproduction``), and the new method's board CSVs with how
closely a ranking reproduces one (``method_boards``)."""
