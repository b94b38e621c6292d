# pinchpoint's service (`pinchpoint serve`) with the Debian storage tools its collectors run.
# docs/deploy.md: how to run it against the host's /sys, /proc and /dev, and why it needs what.
FROM python:3.11-slim-bookworm

LABEL org.opencontainers.image.title="pinchpoint" \
      org.opencontainers.image.description="Configuration health of a storage server's I/O path: REST API, scheduled sweeps, /metrics" \
      org.opencontainers.image.licenses="Apache-2.0"

# The tools the collectors run (sg_ses, smartctl, ethtool, lsscsi, multipath) and sysstat.
# Not pinned: Debian stable's security updates are wanted on every build.
# hadolint ignore=DL3008
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        sg3-utils smartmontools ethtool lsscsi multipath-tools sysstat \
    && rm -rf /var/lib/apt/lists/*

# The package with its PostgreSQL driver (a central service), without the dev extras; the
# source is not kept in the image.
WORKDIR /tmp/pinchpoint-src
COPY pyproject.toml README.md ./
COPY pinchpoint ./pinchpoint
RUN pip install --no-cache-dir --disable-pip-version-check "./[postgres]" \
    && rm -rf /tmp/pinchpoint-src
WORKDIR /

# A user of its own: enough for the demo host, snapshots and a central service. Watching the
# host's own disks needs root in the container (SMART and SES commands need CAP_SYS_RAWIO,
# multipath -ll CAP_SYS_ADMIN, and Docker grants added capabilities to root only): run that
# with `--user 0` as docs/deploy.md shows.
RUN useradd --system --uid 9460 --user-group --home-dir /var/lib/pinchpoint \
        --shell /usr/sbin/nologin pinchpoint \
    && install -d -o pinchpoint -g pinchpoint -m 0750 /var/lib/pinchpoint
ENV PINCHPOINT_DATA_DIR=/var/lib/pinchpoint \
    PYTHONUNBUFFERED=1
VOLUME ["/var/lib/pinchpoint"]
# By number: Kubernetes (runAsNonRoot) and the host can tell it is not root.
USER 9460:9460

EXPOSE 9460
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:9460/healthz', timeout=4).status != 200)"]

# Arguments after the image name replace CMD: `docker run … pinchpoint --demo`.
ENTRYPOINT ["pinchpoint", "serve", "--host", "0.0.0.0"]
CMD ["--demo-if-no-sas"]
