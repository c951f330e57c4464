"""Django settings for Glossa, read from the environment.

Embedded default (no configuration): SQLite and a file-system Celery broker under
``var/``. Production: set ``DATABASE_URL`` (PostgreSQL), ``CELERY_BROKER_URL``
(Redis), ``SECRET_KEY`` and ``ALLOWED_HOSTS``.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import secrets
import tempfile
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from leaderboard.web.static_files import immutable_for_a_year

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("GLOSSA_VAR_DIR", BASE_DIR / "var"))


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int | None) -> int | None:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    return int(value)


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if not value:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


def _local_secret_key() -> str:
    """A stable per-checkout key for the embedded default; production sets SECRET_KEY.

    Written once, readable by its owner only (0600), atomically: the key goes to a private
    temporary file that is then hard-linked into place, which fails if another process
    (the site and the workers start together) got there first; everyone then reads the
    one key that won."""
    key_file = VAR_DIR / "secret_key"
    try:
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        if not key_file.exists():
            fd, tmp = tempfile.mkstemp(dir=VAR_DIR, prefix=".secret_key.")  # mode 0600
            try:
                with os.fdopen(fd, "w") as handle:
                    handle.write(secrets.token_urlsafe(50))
                with contextlib.suppress(FileExistsError):  # another process won: use its key
                    os.link(tmp, key_file)
            finally:
                os.unlink(tmp)
        if key_file.stat().st_mode & 0o077:  # a key file from before: make it private
            key_file.chmod(0o600)
        return key_file.read_text().strip()
    except OSError as exc:  # read-only deployments must set SECRET_KEY
        raise ImproperlyConfigured("Set SECRET_KEY in the environment.") from exc


# GLOSSA_NO_DATABASE=1: a process with no database at all (the GPU worker, README, "Trust boundary: the GPU side"): any
# query raises ImproperlyConfigured, so a code path that would reach the database fails loudly.
GLOSSA_NO_DATABASE = env_bool("GLOSSA_NO_DATABASE", False)
DEBUG = env_bool("DEBUG", False)
# The GPU worker signs nothing: it needs no key, and is given none (a throwaway one per process).
SECRET_KEY = os.environ.get("SECRET_KEY") or (secrets.token_urlsafe(50) if GLOSSA_NO_DATABASE else _local_secret_key())
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "axes",
    "leaderboard",
]

MIDDLEWARE = [
    "leaderboard.web.request_limits.RequestBodyLimitMiddleware",  # before anything reads a body
    "django.middleware.security.SecurityMiddleware",
    "leaderboard.web.csp.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.middleware.gzip.GZipMiddleware",  # boards are large HTML; CSRF tokens are masked per request
    "leaderboard.web.http_cache.HttpCacheMiddleware",  # Cache-Control, ETag, 304 (sees cookies and Vary)
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",  # answers a locked-out login (django-axes)
]

# Login throttling (django-axes): after AXES_FAILURE_LIMIT wrong passwords from one client
# (an IPv4 address, or an IPv6 /64: one subscriber's whole network), whatever usernames they
# name, that client is locked out for AXES_COOLOFF_TIME hours; after AXES_FAILURE_LIMIT wrong
# passwords for one username, from any addresses, that username is locked out too. A
# successful login resets the count. The client is the one the rate limit uses
# (GLOSSA_TRUSTED_PROXIES decide which X-Forwarded-For hop is the client; web/client_address.py).
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = float(os.environ.get("AXES_COOLOFF_HOURS", "0.25"))
AXES_LOCKOUT_PARAMETERS = ["ip_address", "username"]
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "leaderboard.web.client_address.axes_client_ip"
AXES_VERBOSE = False

ROOT_URLCONF = "leaderboard.urls"
WSGI_APPLICATION = "leaderboard.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": {"ENGINE": "django.db.backends.dummy"}
    if GLOSSA_NO_DATABASE
    else dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{VAR_DIR / 'glossa.sqlite3'}"),
        conn_max_age=env_int("DB_CONN_MAX_AGE", 60) or 0,
    )
}


def _private_sqlite(path: Path) -> None:
    """The embedded database (sessions, password hashes) readable by its owner only: created
    0600 before SQLite opens it (SQLite gives its -journal, -wal and -shm files the database
    file's mode), and an older file or journal made private."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    for item in (path, *(path.with_name(path.name + suffix) for suffix in ("-journal", "-wal", "-shm"))):
        with contextlib.suppress(FileNotFoundError):
            if item.stat().st_mode & 0o077:
                item.chmod(0o600)


if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    if str(DATABASES["default"].get("NAME") or ":memory:") != ":memory:":
        _private_sqlite(Path(DATABASES["default"]["NAME"]))
    # SQLite under a web server and a worker at once: wait for locks instead of failing.
    DATABASES["default"].setdefault("OPTIONS", {})["timeout"] = 30
    DATABASES["default"]["CONN_MAX_AGE"] = 0

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
# Hashed names, gzip copies and a year's max-age (leaderboard/web/static_files.py); unhashed
# files (none are linked) keep WhiteNoise's 60 s. `make demo` and the image run collectstatic.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "leaderboard.web.static_files.HashedStaticStorage"},
}
WHITENOISE_ADD_HEADERS_FUNCTION = immutable_for_a_year

# --- security: right for a public site -------------------------------------------
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", SECURE_SSL_REDIRECT)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0) or 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE_HSTS_SECONDS > 0
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)  # a commitment: opt in explicitly
if env_bool("BEHIND_TLS_PROXY", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
DATA_UPLOAD_MAX_MEMORY_SIZE = 1024 * 1024

# How long a shared cache (the reverse proxy, deploy/nginx/glossa.conf) may keep an anonymous
# reader's page (s-maxage, leaderboard/web/http_cache.py): a new board version is visible within it.
SHARED_MAX_AGE = max(0, env_int("GLOSSA_SHARED_MAX_AGE", 30))

# --- cache: Redis when configured (shared by web processes), else local memory ----
# Redis entries are signed JSON (leaderboard/web/cache_backend.py), never pickles: an entry that
# someone without SECRET_KEY wrote is a miss, and nothing read back can run code.
REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CACHES = {"default": {"BACKEND": "leaderboard.web.cache_backend.SignedJsonRedisCache", "LOCATION": REDIS_URL}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# --- Celery ------------------------------------------------------------------------
CELERY_BROKER_DIR = VAR_DIR / "celery-broker"
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "filesystem://")
CELERY_BROKER_TRANSPORT_OPTIONS: dict = {}
if CELERY_BROKER_URL.startswith("filesystem://"):
    for _sub in ("queue", "processed", "control"):
        (CELERY_BROKER_DIR / _sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(CELERY_BROKER_DIR / "queue"),
        "data_folder_out": str(CELERY_BROKER_DIR / "queue"),
        "processed_folder": str(CELERY_BROKER_DIR / "processed"),
        "control_folder": str(CELERY_BROKER_DIR / "control"),
        "store_processed": False,
    }
elif CELERY_BROKER_URL.startswith("redis"):
    # A task not acknowledged within this time is re-delivered; longer than the hard limit.
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 6 * 3600}
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_TASK_ROUTES = {
    "leaderboard.tasks.evaluate_submission": {"queue": "gpu"},
    "leaderboard.tasks.aggregate_boards": {"queue": "default"},
    "leaderboard.tasks.reap_submissions": {"queue": "default"},
    "leaderboard.tasks.apply_submission_event": {"queue": "default"},
    "leaderboard.tasks.run_exam": {"queue": "gpu"},
    "leaderboard.tasks.apply_exam_event": {"queue": "default"},
    "leaderboard.tasks.run_speed_benchmark": {"queue": "gpu"},
    "leaderboard.tasks.apply_speed_event": {"queue": "default"},
}
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
GLOSSA_EVAL_SOFT_TIME_LIMIT = env_int("GLOSSA_EVAL_SOFT_TIME_LIMIT", 4 * 3600)
GLOSSA_EVAL_TIME_LIMIT = env_int("GLOSSA_EVAL_TIME_LIMIT", 4 * 3600 + 600)
# Faults (services/reaper.py): a submission whose worker died this many times is FAILED; the
# worker writes a heartbeat every GLOSSA_HEARTBEAT_SECONDS; the reaper (Celery beat, every
# GLOSSA_REAPER_INTERVAL seconds) takes back RUNNING work without a heartbeat for
# GLOSSA_HEARTBEAT_TIMEOUT seconds and PENDING work whose message is in no queue for
# GLOSSA_PENDING_TIMEOUT seconds.
GLOSSA_MAX_ATTEMPTS = max(1, env_int("GLOSSA_MAX_ATTEMPTS", 3))
GLOSSA_HEARTBEAT_SECONDS = max(1, env_int("GLOSSA_HEARTBEAT_SECONDS", 30))
GLOSSA_HEARTBEAT_TIMEOUT = max(2, env_int("GLOSSA_HEARTBEAT_TIMEOUT", 300))
GLOSSA_PENDING_TIMEOUT = max(1, env_int("GLOSSA_PENDING_TIMEOUT", 600))
# The fair queue (leaderboard/jobs/queue_policy.py, services/dispatch.py): submissions wait
# in the database in the policy's order; at most GLOSSA_QUEUE_AHEAD messages wait on the
# broker for the gpu workers (set it to the number of gpu worker slots, or a little more),
# and GLOSSA_GPU_SLOTS is how many evaluations run at once (the queue page's estimates).
GLOSSA_QUEUE_AHEAD = max(1, env_int("GLOSSA_QUEUE_AHEAD", 2))
GLOSSA_GPU_SLOTS = max(1, env_int("GLOSSA_GPU_SLOTS", 1))
GLOSSA_REAPER_INTERVAL = max(5, env_int("GLOSSA_REAPER_INTERVAL", 60))
GLOSSA_DB_RETRY_SECONDS = max(0, env_int("GLOSSA_DB_RETRY_SECONDS", 300))  # services/db_retry.py
# The GPU worker's result events wait this long for a broker that restarts (tasks/worker_events.py).
GLOSSA_BROKER_RETRY_SECONDS = max(0, env_int("GLOSSA_BROKER_RETRY_SECONDS", 300))
CELERY_BEAT_SCHEDULE = {
    "reap-submissions": {
        "task": "leaderboard.tasks.reap_submissions",
        "schedule": float(GLOSSA_REAPER_INTERVAL),
        "options": {"queue": "default", "expires": float(GLOSSA_REAPER_INTERVAL)},
    }
}

# --- Glossa ------------------------------------------------------------------------
# The repository carries its data (data/NOTICE.md): dataset folders and result records.
DATA_DIR = Path(os.environ.get("DATA_DIR", BASE_DIR / "data" / "datasets"))
RESULTS_DIR = Path(os.environ.get("RESULTS_DIR", BASE_DIR / "data" / "results"))
EVALUATION_OUTPUT_DIR = Path(os.environ.get("GLOSSA_EVALUATION_OUTPUT_DIR", VAR_DIR / "evaluations"))
MODEL_CACHE_DIR = Path(os.environ.get("GLOSSA_MODEL_CACHE", VAR_DIR / "models"))
# Small deployments and tests evaluate a slice: the defaults are the real methodology.
EVALUATION_ITERATIONS = env_int("GLOSSA_ITERATIONS", 10)
EVALUATION_TEST_LIMIT = env_int("GLOSSA_TEST_LIMIT", None)
EVALUATION_BACKEND = os.environ.get("GLOSSA_BACKEND", "transformers")
EVALUATION_MAX_TRAIN_STEPS = env_int("GLOSSA_MAX_TRAIN_STEPS", None)
SUBMISSIONS_PER_DAY = env_int("GLOSSA_SUBMISSIONS_PER_DAY", 5)
RANK_BOOTSTRAP_REPLICATES = env_int("GLOSSA_RANK_BOOTSTRAP_REPLICATES", 200)
# Language models as examiners (docs/methodology.md §8): per exam run, questions per examiner, rounds of
# follow-ups, the answer budget, and at most this many examinees (the submitted model and the
# latest round's best); GLOSSA_EXAM_PEER=1: every examinee also examines the others.
EXAM_QUESTIONS = max(1, env_int("GLOSSA_EXAM_QUESTIONS", 30))
EXAM_FOLLOW_UPS = max(0, env_int("GLOSSA_EXAM_FOLLOW_UPS", 1))
EXAM_ANSWER_TOKENS = max(8, env_int("GLOSSA_EXAM_ANSWER_TOKENS", 256))
EXAM_MAX_EXAMINEES = max(2, env_int("GLOSSA_EXAM_MAX_EXAMINEES", 8))
EXAM_PEER = env_bool("GLOSSA_EXAM_PEER", True)
# Models an exam worker keeps in memory at once (the others are loaded when their turn comes).
EXAM_RESIDENT_MODELS = max(1, env_int("GLOSSA_EXAM_RESIDENT_MODELS", 2))
# The ranking method boards show (leaderboard/ranking/methods/): euroeval-2024 or euroeval-2026.
GLOSSA_RANKING_METHOD = os.environ.get("GLOSSA_RANKING_METHOD", "euroeval-2024")

# --- abuse limits (issue 13.4): cheap requests must stay cheap ----------------------
# Submit attempts that reach the Hub, per client and hour (services/ratelimit.py).
LOOKUPS_PER_HOUR = env_int("GLOSSA_LOOKUPS_PER_HOUR", 20)
# Reverse proxies whose X-Forwarded-For is believed (addresses or CIDRs; web/client_address.py).
TRUSTED_PROXIES = env_list("GLOSSA_TRUSTED_PROXIES", [])
for _proxy in TRUSTED_PROXIES:
    try:
        ipaddress.ip_network(_proxy, strict=False)
    except ValueError as _exc:
        raise ImproperlyConfigured(f"GLOSSA_TRUSTED_PROXIES: {_proxy!r} is not an address or network") from _exc
# Request bodies: over the limit refused before they are read (leaderboard/web/request_limits.py); no uploads.
MAX_REQUEST_BYTES = env_int("GLOSSA_MAX_REQUEST_BYTES", 64 * 1024)  # the admin's: DATA_UPLOAD_MAX_MEMORY_SIZE
# above every body limit: nothing is spooled to disk
FILE_UPLOAD_MAX_MEMORY_SIZE = max(2 * 1024 * 1024, MAX_REQUEST_BYTES or 0, DATA_UPLOAD_MAX_MEMORY_SIZE)
DATA_UPLOAD_MAX_NUMBER_FILES = 0
# Models: refused at submission (Hub metadata) and again before download (evaluation/model_files.py).
MAX_PARAMETERS = env_int("GLOSSA_MAX_PARAMETERS", None)
MAX_DOWNLOAD_BYTES = env_int("GLOSSA_MAX_DOWNLOAD_BYTES", None)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}
