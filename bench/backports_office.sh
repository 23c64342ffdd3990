#!/usr/bin/env bash
# Unpack LibreOffice from bookworm-backports (25.2 at the time of writing) into PREFIX, beside the
# system's 7.4, without touching apt's sources or the installed packages; for benchmarks that compare
# the two offices (bench/bench_a11y_offices.py --soffice PREFIX/bin/soffice).
# Usage: bash bench/backports_office.sh [PREFIX]   (default /opt/lo-backports; needs root for apt's lock)
# Prints the wrapper's path. The office runs; this unpacked tree's UNO bridge does not serve the
# system's pyuno (calls end in "Binary URP bridge disposed"), so only the GUI and AT-SPI are usable.
set -euo pipefail
PREFIX=${1:-/opt/lo-backports}
APT_DIR=$(mktemp -d)
trap 'rm -rf "$APT_DIR"' EXIT
mkdir -p "$APT_DIR/lists/partial" "$APT_DIR/archives/partial"
cat > "$APT_DIR/sources.list" <<'EOF'
deb http://deb.debian.org/debian bookworm main
deb http://deb.debian.org/debian bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
deb http://deb.debian.org/debian bookworm-backports main
EOF
APT_OPTS=(-o "Dir::Etc::SourceList=$APT_DIR/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=$APT_DIR/lists" -o "Dir::Cache::archives=$APT_DIR/archives"
  -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=)
apt-get "${APT_OPTS[@]}" update -qq
# What the backports office needs beyond what is installed (apt's own resolution, download only).
apt-get "${APT_OPTS[@]}" install -y -qq --download-only -t bookworm-backports \
  libreoffice-calc libreoffice-writer libreoffice-gtk3 >/dev/null
rm -rf "$PREFIX"
mkdir -p "$PREFIX/bin"
for deb in "$APT_DIR"/archives/*.deb; do dpkg -x "$deb" "$PREFIX"; done
PROGRAM="$PREFIX/usr/lib/libreoffice/program"
# The configuration registry is made by libreoffice-common's postinst (ucf); copy it instead.
mkdir -p "$PREFIX/etc/libreoffice/registry"
cp "$PREFIX/usr/lib/libreoffice/share/.registry/main.xcd" "$PREFIX/etc/libreoffice/registry/main.xcd"
# Absolute links point into /etc and /usr: point them into PREFIX.
while IFS= read -r link; do
  target=$(readlink "$link")
  [ -e "$PREFIX$target" ] && ln -sfn "$PREFIX$target" "$link"
done < <(find "$PREFIX" -type l -lname '/*')
sed -i "s#file:///usr/lib/libreoffice#file://$PREFIX/usr/lib/libreoffice#g" "$PROGRAM/fundamentalrc"
ln -sfn ../../x86_64-linux-gnu/libzxcvbn.so.0 "$PROGRAM/libzxcvbn.so.0"
cat > "$PREFIX/bin/soffice" <<EOF
#!/bin/sh
# LibreOffice from bookworm-backports, unpacked by bench/backports_office.sh.
LD_LIBRARY_PATH=$PROGRAM\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
exec $PROGRAM/soffice "\$@"
EOF
chmod 755 "$PREFIX/bin/soffice"
chmod -R a+rX "$PREFIX"
"$PREFIX/bin/soffice" --version >&2
echo "$PREFIX/bin/soffice"
