# The Discord bot in an image (docs/deploy.md). Run it with an init, so that `docker stop`'s
# SIGTERM reaches the bot and it can close cleanly:
#   docker run -d --init --restart unless-stopped --env-file .env -v khronos-data:/data khronos
# The Python here is the one requirements.txt was pinned with (`make lock`).
ARG PYTHON=python:3.11-slim

# --- build: the pinned dependencies, then the project as a wheel, into /opt/venv -------------
FROM ${PYTHON} AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
WORKDIR /src
# dependencies in their own layer: rebuilt only when requirements.txt changes
COPY requirements.txt ./
RUN pip install -r requirements.txt
# then the code, without resolving anything again (the pins above are the dependencies)
COPY pyproject.toml ./
COPY engine ./engine
COPY render ./render
COPY ai ./ai
COPY bot ./bot
RUN pip install --no-deps . && pip check

# --- run: no compiler, no pip cache, no sources; a non-root user -----------------------------
FROM ${PYTHON}
RUN useradd --create-home --uid 10001 --user-group khronos \
    && mkdir /data && chown khronos:khronos /data
COPY --from=build /opt/venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH \
    KHRONOS_DATA_DIR=/data \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1
USER khronos
WORKDIR /home/khronos
# The SQLite file (and the heartbeat) live here: a named volume (owned by khronos, uid 10001),
# or a host folder with `--user "$(id -u):$(id -g)"` so that its owner is the one who writes.
VOLUME ["/data"]
# `docker stop` sends SIGTERM (with --init, tini passes it on), waits 10 s, then kills.
STOPSIGNAL SIGTERM
# Healthy while the gateway is connected: the bot renews /data/heartbeat every 20 s and the
# check (python only, no network tool) fails when it is older than 90 s or missing.
HEALTHCHECK --interval=60s --timeout=10s --start-period=120s --retries=3 \
    CMD ["python", "-m", "bot.health", "--data-dir", "/data"]
# --data-dir here wins over a KHRONOS_DATA_DIR from an --env-file: the games stay on the volume.
CMD ["python", "-m", "bot", "--data-dir", "/data"]
