# pinchpoint with the Debian storage tools its collectors run.
FROM python:3.11-slim-bookworm

RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        sg3-utils smartmontools ethtool lsscsi multipath-tools \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /opt/pinchpoint
COPY pyproject.toml README.md ./
COPY pinchpoint ./pinchpoint
RUN pip install --no-cache-dir .

ENTRYPOINT ["pinchpoint"]
CMD ["inventory", "--demo-if-no-sas"]
