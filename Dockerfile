# Moldau broker image: `docker build -t moldau .`
#
#   docker run -p 9092:9092 moldau                       # a lone broker, clients on localhost:9092
#   docker run moldau --override zookeeper.connect=zk:2181/moldau --override broker.id=1 ...
#
# Arguments are those of `python -m broker` (an optional server.properties, then
# --override key=value, as kafka-server-start.sh); they replace the defaults below.
# Data lives in the volume /var/lib/moldau (log.dirs=/var/lib/moldau/data).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /opt/moldau
COPY . /opt/moldau
RUN pip install . \
    && useradd --system --uid 1000 --home-dir /var/lib/moldau moldau \
    && mkdir -p /var/lib/moldau/data \
    && chown -R moldau /var/lib/moldau

USER moldau
WORKDIR /var/lib/moldau
VOLUME ["/var/lib/moldau"]
EXPOSE 9092

# SIGTERM (docker stop) shuts the broker down cleanly.
ENTRYPOINT ["python", "-m", "broker"]
CMD ["--override", "log.dirs=/var/lib/moldau/data", \
     "--override", "listeners=PLAINTEXT://0.0.0.0:9092", \
     "--override", "advertised.listeners=PLAINTEXT://localhost:9092"]
