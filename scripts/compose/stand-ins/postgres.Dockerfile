# Stand-in for postgres:15 from Debian's postgresql-15: the official image's interface that
# docker-compose.yml relies on (POSTGRES_USER / POSTGRES_PASSWORD / POSTGRES_DB at first start, data in
# /var/lib/postgresql/data, pg_isready, listening on the compose network with password auth).
FROM cratehouse-offline/debian:bookworm
RUN apt-get update \
  && apt-get install -y --no-install-recommends postgresql-common \
  && sed -i 's/^#\?\s*create_main_cluster.*/create_main_cluster = false/' /etc/postgresql-common/createcluster.conf \
  && apt-get install -y --no-install-recommends postgresql-15 \
  && rm -rf /var/lib/apt/lists/*
COPY postgres-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data
EXPOSE 5432
ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
STOPSIGNAL SIGINT
