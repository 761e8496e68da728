# Two stages: build the wheels with the compiler, run them without it, as a non-root user.
FROM python:3.11-slim AS build
WORKDIR /src
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
COPY pyproject.toml README.md ./
COPY engine ./engine
COPY render ./render
COPY bot ./bot
RUN pip install --no-cache-dir --upgrade pip && pip install --no-cache-dir .

FROM python:3.11-slim
RUN useradd --create-home --uid 10001 khronos && mkdir /data && chown khronos /data
COPY --from=build /opt/venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH \
    KHRONOS_DATA_DIR=/data \
    PYTHONUNBUFFERED=1
USER khronos
WORKDIR /home/khronos
# The SQLite file lives on this volume; give it a named volume or a host folder.
VOLUME ["/data"]
CMD ["python", "-m", "bot"]
