#!/usr/bin/env bash
# conformance-images.sh VERSION OUT TOOLS_DIR — writes an OCI image archive
# for each image in IMAGES into OUT (NAME-TAG.tar, e.g. agnhost-2.52.tar) and
# prints OUT as its last line. Conformance pods pull with IfNotPresent, so on an
# offline cluster every Node needs these imported (ctr -n k8s.io images import)
# under their upstream names. Why each image, and which are not built:
# conformance/VERSION/conformance-images.txt.
#
# Nothing is pulled from a registry. The userlands are Debian packages with
# their Depends as apt resolves them (apt-get download, dpkg-deb -x), the
# Alpine base of upstream's images replaced by busybox-static's applets; the
# busybox image's binary is built from Debian's source (busybox.sh: why); the
# programs are TOOLS_DIR's agnhost (conformance.sh) and Go builds of
# nonewprivs' nnp, the sample API server (module conformance/VERSION) and etcd
# (conformance/VERSION/etcd). Each archive is imported into a throwaway
# containerd (Debian's, by debs.sh) and run (verify-image.sh). Each image is
# a part with its own stamp; OUT holds hard links to the parts' archives.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
version=${1:?usage: conformance-images.sh VERSION OUT TOOLS_DIR}
out=${2:?usage: conformance-images.sh VERSION OUT TOOLS_DIR}
tools=${3:?usage: conformance-images.sh VERSION OUT TOOLS_DIR}
moddir="$BUNDLE_SRC/conformance/$version"
[[ -x $tools/agnhost ]] || die "conformance-images: no $tools/agnhost (make conformance-tools)"

# The images built: the rows of conformance/VERSION/conformance-images.txt
# marked built, each made by the recipe of its name in build_one (agnhost,
# busybox, …; a test checks every built image has one). A new version needs
# that list and, for its etcd image, the module conformance/VERSION/etcd.
list="$moddir/conformance-images.txt"
[[ -f $list ]] || die "conformance-images: no $list (which images the [Conformance] specs run: see the other versions')"
mapfile -t IMAGES < <(awk '!/^#/ && $3 == "built" { print $1 }' "$list")
((${#IMAGES[@]})) || die "conformance-images: $list marks no image built"
# The Debian packages of each kind of image (upstream's Dockerfiles under
# test/images/: agnhost's apk list, httpd and nginx on Alpine, jessie-dnsutils'
# and glibc-dns-testing's dnsutils); getent (libc-bin) for the DNS tests'
# /etc/hosts checks.
# The base is Debian's dynamic busybox: busybox-static's sh runs its own
# applets before PATH (FEATURE_SH_STANDALONE), so `sh -c "nc …"` would never
# reach netcat-openbsd; Alpine's sh, like this one, searches PATH.
declare -A DEBS=(
  [base]="busybox"
  [agnhost]="busybox bash curl bind9-dnsutils netcat-openbsd iproute2 iperf libc-bin"
  [busybox]="busybox-static"
  [httpd]="busybox apache2-bin media-types"
  [nginx]="busybox nginx"
  [dnsutils]="busybox bash bind9-dnsutils libc-bin"
)
PATH_ENV=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

mkdir -p "$out"
exec 9>"$out.lock"
flock -n 9 || { log "another build holds $out.lock; waiting"; flock 9; }
parts="$out/.parts"
started=$SECONDS

# closure PACKAGE...: package=version of each package apt would install for
# them on an empty system (no Recommends), one apt call.
closure() {
  apt-get -s -o Dir::State::status=/dev/null --no-install-recommends install "$@" 2>/dev/null |
    awk '/^Inst / {v = $3; gsub(/[()]/, "", v); print $2 "=" v}' | LC_ALL=C sort
}
# Every package any image needs, in two apt calls: busybox and busybox-static
# conflict, so the busybox image's is resolved on its own.
all_debs=$(printf '%s\n' "${DEBS[@]}" | tr ' ' '\n' | grep -vx busybox-static | LC_ALL=C sort -u | tr '\n' ' ')
all() { { closure $all_debs && closure ${DEBS[busybox]}; } | LC_ALL=C sort -u; }
debs=$(all) || true
if [[ -z $debs ]]; then
  log "conformance-images: apt resolves none of $all_debs: apt-get update"
  apt-get update -qq || die "conformance-images: apt-get update failed"
  debs=$(all) || die "conformance-images: apt cannot resolve $all_debs ${DEBS[busybox]}"
fi

# The containerd that verifies the archives: Debian's, as the bundle ships it.
"$BUNDLE_SRC/scripts/debs.sh" "$parts/debs"
bindir="$parts/debs/usr/local/bin"

sources=$(cd "$BUNDLE_SRC" && cat scripts/conformance-images.sh scripts/lib.sh scripts/verify-image.sh \
  scripts/busybox.sh ociimage/*.go cmd/ociarchive/*.go "conformance/$version/go.sum" "conformance/$version/etcd/go.sum" | sha256sum | cut -c1-16)
common="$(go env GOVERSION) $sources $(sha256sum <"$tools/agnhost" | cut -c1-16) $(sha256sum <<<"$debs" | cut -c1-16)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
kube_dir=$(cd "$moddir" && GOFLAGS="$BUILD_GOFLAGS" go list -m -f '{{.Dir}}' k8s.io/kubernetes)

# fetch_debs: downloads the closure once per run (only when some image is built).
fetch_debs() {
  [[ -d $work/debs ]] && return
  mkdir "$work/debs"
  log "conformance-images: apt-get download $(wc -w <<<"$debs") packages"
  # apt drops privileges to _apt, which cannot write a root-owned mktemp directory.
  (cd "$work/debs" && apt-get download -qq -o APT::Sandbox::User=root $debs) ||
    die "conformance-images: apt-get download failed"
}

# unpack ROOT PACKAGE...: the packages and their Depends, unpacked into ROOT
# (no maintainer scripts: the images' /etc is written below), docs left out.
unpack() {
  local root=$1 p v deb
  shift
  fetch_debs
  mkdir -p "$root"
  for p in $(closure "$@"); do
    v=${p#*=}
    # apt-get download writes an epoch's colon as %3a.
    deb=$(compgen -G "$work/debs/${p%%=*}_${v/:/%3a}_*.deb") || die "conformance-images: $p was not downloaded"
    dpkg-deb -x "$deb" "$root"
  done
  rm -rf "$root"/usr/share/{doc,man,info,locale,lintian,bug,menu,initramfs-tools}
}

# base ROOT: busybox's applets as an Alpine base has them (a link per applet
# at the path busybox names, unless a Debian package put a program of that
# name on PATH), and etc.
base() {
  local root=$1 a d found
  # The links Debian's maintainer scripts would make (update-alternatives).
  [[ -e $root/bin/nc.openbsd ]] && ln -s nc.openbsd "$root/bin/nc"
  for a in $("$root/bin/busybox" --list-full); do
    [[ $a == linuxrc ]] && continue
    found=
    for d in bin sbin usr/bin usr/sbin; do
      [[ -e $root/$d/${a##*/} || -L $root/$d/${a##*/} ]] && found=1
    done
    [[ -n $found ]] && continue
    mkdir -p "$root/$(dirname "$a")"
    ln -s /bin/busybox "$root/$a"
  done
  etc "$root"
}

# etc ROOT: what every image has besides its programs: a sticky /tmp, the
# users and groups upstream's images know, and name lookups as Debian's.
etc() {
  local root=$1
  mkdir -p "$root/tmp" "$root/etc" "$root/root" "$root/run" "$root/var/run"
  chmod 1777 "$root/tmp"
  cat >"$root/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
daemon:x:2:2:daemon:/sbin:/sbin/nologin
nginx:x:101:101:nginx:/var/cache/nginx:/sbin/nologin
www-data:x:82:82:www-data:/var/www:/sbin/nologin
nobody:x:65534:65534:nobody:/:/sbin/nologin
EOF
  cat >"$root/etc/group" <<'EOF'
root:x:0:
daemon:x:2:
nginx:x:101:nginx
www-data:x:82:
nogroup:x:65534:
EOF
  printf 'passwd: files\ngroup: files\nhosts: files dns\n' >"$root/etc/nsswitch.conf"
  # Kubelet mounts its own /etc/hosts; a container run by hand has this one.
  printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' >"$root/etc/hosts"
}

gobuild() { # gobuild MODULE_DIR OUT PACKAGE [LDFLAGS]
  (cd "$1" && CGO_ENABLED=0 GOOS=linux GOARCH=amd64 GOFLAGS="$BUILD_GOFLAGS" nice -n 19 \
    go build -trimpath -ldflags "${4:--s -w}" -o "$2" "$3")
}

# agnhost_root ROOT: upstream's agnhost Dockerfile: the program at /agnhost,
# /agnhost-2 linked to it (entrypoint tests), /uploads (netexec), porter's
# certificate, iperf also in /usr/local/bin, and the user 1000 in group 50000
# (the SupplementalGroups test).
agnhost_root() {
  local root=$1
  unpack "$root" ${DEBS[agnhost]}
  base "$root"
  install -m 0755 "$tools/agnhost" "$root/agnhost"
  ln -s agnhost "$root/agnhost-2"
  mkdir -p "$root/uploads" "$root/usr/local/bin" "$root/home/user-defined-in-image"
  install -m 0644 "$kube_dir/test/images/agnhost/porter/localhost.crt" "$kube_dir/test/images/agnhost/porter/localhost.key" "$root/"
  ln -s /usr/bin/iperf "$root/usr/local/bin/iperf"
  echo 'user-defined-in-image:x:1000:1000::/home/user-defined-in-image:/bin/sh' >>"$root/etc/passwd"
  printf 'user-defined-in-image:x:1000:\ngroup-defined-in-image:x:50000:user-defined-in-image\n' >>"$root/etc/group"
}

# httpd_root ROOT: Debian's Apache laid out as the httpd:2.4-alpine image:
# ServerRoot /usr/local/apache2, the page at htdocs/index.html (the
# StatefulSet tests move it away and back), `httpd-foreground` as the command.
httpd_root() {
  local root=$1 a=$1/usr/local/apache2
  unpack "$root" ${DEBS[httpd]}
  base "$root"
  mkdir -p "$a/bin" "$a/conf" "$a/htdocs" "$a/logs" "$root/usr/local/bin"
  echo '<html><body><h1>It works!</h1></body></html>' >"$a/htdocs/index.html"
  cat >"$a/conf/httpd.conf" <<'EOF'
# Upstream's defaults that matter to the tests, for Debian's apache2-bin
# (mod_log_config and mod_unixd are built in).
ServerRoot "/usr/local/apache2"
ServerName localhost
Listen 80
LoadModule mpm_event_module /usr/lib/apache2/modules/mod_mpm_event.so
LoadModule authz_core_module /usr/lib/apache2/modules/mod_authz_core.so
LoadModule mime_module /usr/lib/apache2/modules/mod_mime.so
LoadModule dir_module /usr/lib/apache2/modules/mod_dir.so
User daemon
Group daemon
DefaultRuntimeDir logs
PidFile logs/httpd.pid
DocumentRoot "/usr/local/apache2/htdocs"
<Directory "/usr/local/apache2/htdocs">
    Require all granted
</Directory>
DirectoryIndex index.html
TypesConfig /etc/mime.types
ErrorLog /proc/self/fd/2
LogLevel warn
LogFormat "%h %l %u %t \"%r\" %>s %b" common
CustomLog /proc/self/fd/1 common
EOF
  printf '#!/bin/sh\nexec /usr/sbin/apache2 -d /usr/local/apache2 -f conf/httpd.conf "$@"\n' >"$a/bin/httpd"
  printf '#!/bin/sh\nset -e\nrm -f /usr/local/apache2/logs/httpd.pid\nexec httpd -DFOREGROUND "$@"\n' >"$root/usr/local/bin/httpd-foreground"
  chmod 0755 "$a/bin/httpd" "$root/usr/local/bin/httpd-foreground"
}

# nginx_root ROOT: Debian's nginx with the nginx:alpine image's configuration:
# the welcome page from /usr/share/nginx/html on port 80, user nginx, logs to
# the container's stdout and stderr.
nginx_root() {
  local root=$1
  unpack "$root" ${DEBS[nginx]}
  base "$root"
  rm -rf "$root/etc/nginx/sites-available" "$root/etc/nginx/sites-enabled"
  mkdir -p "$root/etc/nginx/conf.d" "$root/var/log/nginx" "$root/var/lib/nginx" "$root/var/cache/nginx"
  cat >"$root/etc/nginx/nginx.conf" <<'EOF'
user nginx;
worker_processes 1;
error_log /dev/stderr warn;
pid /var/run/nginx.pid;
events { worker_connections 1024; }
http {
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log /dev/stdout;
    sendfile on;
    keepalive_timeout 65;
    include /etc/nginx/conf.d/*.conf;
}
EOF
  cat >"$root/etc/nginx/conf.d/default.conf" <<'EOF'
server {
    listen 80;
    server_name localhost;
    location / {
        root /usr/share/nginx/html;
        index index.html index.htm;
    }
}
EOF
}

# busybox_root ROOT: docker's busybox image, which upstream's is: the binary
# at /bin/busybox and every applet linked beside it in /bin (`busybox --install
# /bin`; the Sysctls test runs /bin/sysctl), built by busybox.sh from the
# source of the busybox-static the closure resolves.
busybox_root() {
  local root=$1 v src a
  v=$(sed -n 's/^busybox-static=//p' <<<"$debs")
  [[ -n $v ]] || die "conformance-images: apt resolves no busybox-static"
  src=$(apt-cache show "busybox-static=$v" | sed -n 's/^Source: busybox (\(.*\))$/\1/p' | head -n1)
  mkdir -p "$root/bin"
  "$BUNDLE_SRC/scripts/busybox.sh" "${src:-$v}" "$root/bin/busybox"
  for a in $("$root/bin/busybox" --list); do
    # Symbolic, not hard, links: the archive writer stores a hard link as a copy.
    [[ $a == busybox || $a == linuxrc ]] || ln -s busybox "$root/bin/$a"
  done
  etc "$root"
}

# build_one REF: the part for one image: its root, its archive, its check.
build_one() {
  local ref=$1 repo tag kind file part key tmp root args=() verify=()
  repo=${ref%:*} tag=${ref##*:} kind=${repo##*/}
  file="$kind-$tag.tar"
  part="$parts/$kind-$tag"
  key="conformance-image $ref $common"
  if fresh "$part" "$key"; then
    log "conformance-images: $ref cached"
    return
  fi
  tmp=$(begin_part "$part")
  root="$work/root-$kind-$tag"
  case $kind in
  agnhost)
    # Every agnhost tag of the list gets this version's agnhost: v1.36.5's
    # suite also names an older release (AgnhostPrev: 2.55 beside 2.66.1) as
    # the image a Deployment, DaemonSet, StatefulSet or Pod is updated from or
    # to; the specs compare names and run the same
    # subcommands (test-webserver, pause), as httpd's two tags did before.
    agnhost_root "$root"
    args=(-entrypoint /agnhost -cmd pause)
    # agnhost pause exits 2 on SIGTERM; the probe runs what the tests exec.
    verify=(--status 2 --probe 'set -e; bash -c "echo bash"; curl --version | head -n1; dig -v; nslookup -version 2>&1 | grep "nslookup 9"
      nc -h 2>&1 | grep -q OpenBSD; ip -o link show lo; ss -ltn; iperf -v 2>&1 | head -n1; getent hosts localhost; /agnhost-2 --help >/dev/null')
    ;;
  nautilus | kitten)
    agnhost_root "$root"
    install -m 0644 "$kube_dir/test/images/$kind/html/$kind.jpg" "$kube_dir/test/images/$kind/html/data.json" "$root/"
    args=(-entrypoint /agnhost -cmd test-webserver)
    # test-webserver serves the working directory (/) on port 80.
    verify=(--status 2 --probe "curl -sf http://127.0.0.1/data.json && curl -sf -o /dev/null http://127.0.0.1/$kind.jpg")
    ;;
  busybox)
    busybox_root "$root"
    args=(-cmd sh)
    # What the Sysctls and the ConfigMap/Secret environment tests rely on.
    verify=(--once '/bin/sysctl data-1=value-1' -- sh -c 'busybox | head -n1; echo $(ls /bin/sysctl) $(env data-1=value-1 sh -c env | grep data-1)')
    ;;
  httpd)
    httpd_root "$root"
    args=(-cmd httpd-foreground -workdir /usr/local/apache2 -env "HTTPD_PREFIX=/usr/local/apache2"
      -env "PATH=/usr/local/apache2/bin:${PATH_ENV#PATH=}")
    verify=(--probe 'wget -qO- http://127.0.0.1/ | grep "It works!"')
    ;;
  nginx)
    nginx_root "$root"
    args=(-cmd '["nginx", "-g", "daemon off;"]')
    verify=(--probe 'wget -qO- http://127.0.0.1/ | grep "Welcome to nginx!"')
    ;;
  nonroot)
    # Upstream: debian-base with USER 1234; here the busybox base.
    unpack "$root" ${DEBS[base]}
    base "$root"
    args=(-cmd /bin/sh -user 1234)
    verify=(--once 'uid=1234' -- id)
    ;;
  nonewprivs)
    # nnp prints its effective uid: setuid root, it says 0 unless no_new_privs
    # (allowPrivilegeEscalation: false) keeps the caller's uid.
    unpack "$root" ${DEBS[base]}
    base "$root"
    mkdir -p "$root/usr/local/bin"
    gobuild "$moddir" "$root/usr/local/bin/nnp" k8s.io/kubernetes/test/images/nonewprivs
    chmod 4755 "$root/usr/local/bin/nnp"
    args=(-cmd nnp)
    # ctr runs it as root and busybox cannot switch users here: the check is
    # that nnp runs from PATH and stays setuid root after the import.
    verify=(--once '4755 0 Effective uid: 0' -- sh -c 'echo "$(stat -c "%a %u" /usr/local/bin/nnp) $(nnp)"')
    ;;
  jessie-dnsutils | glibc-dns-testing)
    # Upstream: Debian with dnsutils (jessie-dnsutils: jessie; its successor
    # glibc-dns-testing, in v1.36.5's suite: bookworm-slim); here bookworm's
    # on the busybox base.
    unpack "$root" ${DEBS[dnsutils]}
    base "$root"
    args=(-cmd bash)
    verify=(--once 'DiG 9.' -- sh -c 'dig -v 2>&1; nslookup -version 2>&1; host -V 2>&1; getent hosts localhost')
    ;;
  sample-apiserver)
    etc "$root"
    gobuild "$moddir" "$root/sample-apiserver" k8s.io/sample-apiserver "$(kube_ldflags "$version" "$moddir")"
    args=(-entrypoint /sample-apiserver)
    verify=(--once 'Launch a wardle API server' -- /sample-apiserver --help)
    ;;
  etcd)
    # The aggregator test runs /usr/local/bin/etcd; upstream's image also has
    # etcdctl, etcdutl and its migration scripts, which no test calls.
    etc "$root"
    mkdir -p "$root/var/lib/etcd" "$root/usr/local/bin"
    local pinned
    pinned=$(cd "$moddir/etcd" && GOFLAGS="$BUILD_GOFLAGS" go list -m -f '{{.Version}}' go.etcd.io/etcd/server/v3)
    [[ v$tag == "$pinned"-0 ]] || die "conformance-images: etcd/go.mod pins $pinned, the image is $ref"
    gobuild "$moddir/etcd" "$root/usr/local/bin/etcd" .
    args=(-entrypoint /usr/local/bin/etcd)
    # Run as the aggregator test runs it; it must serve until SIGTERM, then
    # stop. As PID 1 it has exited 2 in every build but one, a cold CI run's,
    # where it exited 0 (why it varies was not traced): both are a stop.
    verify=(--status 0,2 -- /usr/local/bin/etcd --listen-client-urls http://127.0.0.1:2379 --advertise-client-urls http://127.0.0.1:2379)
    ;;
  *) die "conformance-images: no recipe for $ref" ;;
  esac
  [[ " ${args[*]} " == *" -env PATH="* ]] || args+=(-env "$PATH_ENV")
  "$work/ociarchive" -name "$ref" -o "$tmp/$file" "${args[@]}" -tree "$root"
  rm -rf "$root"
  log "conformance-images: $ref: $file $(du -h --apparent-size "$tmp/$file" | cut -f1)"
  "$BUNDLE_SRC/scripts/verify-image.sh" "$tmp/$file" "$ref" "$bindir" "${verify[@]}"
  end_part "$tmp" "$part" "$key"
}

(cd "$BUNDLE_SRC" && go build -o "$work/ociarchive" ./cmd/ociarchive)
want=()
for ref in "${IMAGES[@]}"; do
  build_one "$ref"
  want+=("$(basename "${ref%:*}")-${ref##*:}.tar")
done
# OUT: a link to each part's archive, and nothing else.
for f in "${want[@]}"; do ln -f "$parts/${f%.tar}/$f" "$out/$f"; done
for f in "$out"/*.tar; do
  [[ " ${want[*]} " == *" $(basename "$f") "* ]] || rm -f "$f"
done
log "conformance-images: ${#want[@]} images in $((SECONDS - started)) s; $(du -sh "$out" | cut -f1) in $out"
echo "$out"
