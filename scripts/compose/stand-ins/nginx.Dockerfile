# Stand-in for nginx:1.27-alpine from Debian's nginx (1.22): the same conf.d include, logs to the
# container's output, busybox-style `wget` for the compose health check, nginx in the foreground.
FROM cratehouse-offline/debian:bookworm
RUN apt-get update \
  && apt-get install -y --no-install-recommends nginx-light wget \
  && rm -rf /var/lib/apt/lists/* /etc/nginx/sites-enabled/default \
  && ln -sf /dev/stdout /var/log/nginx/access.log && ln -sf /dev/stderr /var/log/nginx/error.log
EXPOSE 80
STOPSIGNAL SIGQUIT
CMD ["nginx", "-g", "daemon off;"]
