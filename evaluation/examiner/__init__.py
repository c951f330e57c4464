"""Language models as examiners (Bai et al. 2023; docs/methodology.md §8), without Django.

An examiner writes an exam over a domain taxonomy at three cognitive levels, asks
follow-up questions after correct answers, grades open answers on a Likert scale as
XGrammar-constrained JSON and ranks the examinees' answers to each question by pairwise
comparison arranged as a merge sort. Peer examination lets every participant examine the
others; :mod:`evaluation.examiner.voting` combines their verdicts.

Modules: ``taxonomy`` (domains and levels, from ``data/domains.json``), ``prompts`` (what
each role is asked), ``schemas`` (the JSON each answer must match, and its parsing),
``dedup`` (near-duplicate questions), ``merge_sort`` (the comparison sort), ``exam`` (the
orchestration: answers, grades, follow-ups), ``exam_types`` (the settings, participants,
questions and answers its steps share), ``question_writing`` (the examiners' questions),
``answer_ranking`` (each question's answers ranked by merge sort), ``records`` (the JSONL
document and its validation), ``voting`` (the scores, intervals and agreement),
``metering`` (calls, tokens and seconds per model).
"""
