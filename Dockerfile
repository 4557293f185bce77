# A slim image: the bot, its banks and nothing else. The SQLite file lives on the /data volume;
# the PostgreSQL driver is installed too, so DATABASE_URL=postgresql+psycopg://… works as well
# (compose.postgres.yaml runs it that way, in two sharded processes).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DATABASE_URL=sqlite:////data/quizbot.db \
    CONTENT_CACHE=/data/content-cache.pickle \
    CONTENT_DIR=/app/content

WORKDIR /app

RUN useradd --system --uid 10001 --no-create-home --home-dir /app quizbot \
    && mkdir -p /data \
    && chown quizbot /data

COPY pyproject.toml README.md ./
COPY bot ./bot
# This folder's project with its postgres extra (the driver); versions come from pyproject.toml.
RUN pip install --no-cache-dir './[postgres]'

# Baked in; mount your own banks over /app/content to replace them.
COPY content ./content

USER 10001
VOLUME ["/data"]
# Healthy only while the database answers and the gateway is connected (compose reads this too).
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 CMD ["quizbot", "health"]
ENTRYPOINT ["quizbot"]
CMD ["run"]
