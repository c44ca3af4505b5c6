# Stand-in for redis:7 from Debian's redis-server (7.0): works in /data as the redis user and, like the
# official image, turns protected mode off so that other containers on the network can connect.
FROM cratehouse-offline/debian:bookworm
RUN apt-get update \
  && apt-get install -y --no-install-recommends redis-server redis-tools \
  && rm -rf /var/lib/apt/lists/* \
  && mkdir /data && chown redis:redis /data
COPY redis-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
WORKDIR /data
EXPOSE 6379
ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
CMD ["redis-server"]
