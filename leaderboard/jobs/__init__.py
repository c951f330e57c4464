"""GPU jobs: what every kind of job shares. ``lifecycle`` is the site's side (status moves
with compare-and-set, cancel, re-queue, the reaper, the check of a worker's events),
``worker`` the GPU worker's (events, heartbeats, attempts, failures), ``queue_policy`` the
fair order of the evaluation queue. A kind of job (an evaluation: ``services/submission_job.
SUBMISSIONS``; an exam run: ``services/exam_runs.EXAM_RUNS``; a speed benchmark:
``services/speed_jobs.SPEED_JOBS``) supplies what differs."""
