#!/bin/sh
# Regenerate the build system from configure.ac and the Makefile.am files,
# and copy automake's TAP driver, which autoreconf does not install.
set -e
cd "$(dirname "$0")"
mkdir -p build-aux m4
autoreconf -fi
cp -f "$(automake --print-libdir)/tap-driver.sh" build-aux/tap-driver.sh
