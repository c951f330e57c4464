"""GPU jobs: what every kind of job shares (today the queue policy; issue #25 moves the
lifecycle here)."""
