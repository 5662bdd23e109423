#!/usr/bin/env bash
# Builds Farcast's Debian package with Debian's tools: out/farcast_VERSION_ARCH.deb.
#   scripts/package.sh          (then: apt install ./out/farcast_*.deb)
# The source tree (files git tracks or would track: uncommitted edits included) is copied to
# out/src/farcast, packaging/debian becomes its debian/, and `dpkg-buildpackage -b -us -uc`
# builds there. SwiftPM's build directory is kept in out/swift-build, so a second run only
# rebuilds what changed. The Swift runtime and Foundation are linked statically
# (--static-swift-stdlib): the package depends on Debian's libraries only.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
bash scripts/install-deps.sh >/dev/null
command -v swift >/dev/null || export PATH=/opt/swift/usr/bin:$PATH

# The package version follows the program's (`viewer --version`).
version=$(sed -n 's/^ *static let string = "\([0-9][^"]*\)".*/\1/p' Sources/viewer/Viewer.swift | head -n1)
debversion=$(dpkg-parsechangelog -l packaging/debian/changelog -S Version)
if [ "${debversion%-*}" != "$version" ]; then
  echo "package.sh: packaging/debian/changelog says $debversion but viewer --version is $version;" \
       "add a changelog entry (dch -v $version-1)" >&2
  exit 1
fi

src=out/src/farcast
mkdir -p "$src" out
find "$src" -mindepth 1 -maxdepth 1 -exec rm -rf {} +
git ls-files -z --cached --others --exclude-standard |
  rsync -a --from0 --files-from=- --ignore-missing-args ./ "$src/"
rm -rf "$src/debian"
cp -a packaging/debian "$src/debian"
rm -f out/src/farcast_* out/src/farcast-dbgsym_*

(
  cd "$src"
  export FARCAST_SCRATCH="$top/out/swift-build"
  dpkg-buildpackage -b -us -uc
)
rm -f out/farcast_*.deb out/farcast_*.buildinfo out/farcast_*.changes out/farcast-dbgsym_*
mv out/src/farcast_* out/
mv out/src/farcast-dbgsym_* out/ 2>/dev/null || true
deb=$(ls out/farcast_"$debversion"_*.deb)
echo "package.sh: $deb ($(du -h "$deb" | cut -f1))"
