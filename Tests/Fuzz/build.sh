#!/usr/bin/env bash
# Builds the libFuzzer target `open` (see README.md) into .build/fuzz/open.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=.build/fuzz
mkdir -p "$out"
cat > "$out/module.modulemap" <<MAP
module CCRC32C {
    header "$PWD/Sources/CCRC32C/include/crc32c.h"
    export *
}
MAP
clang -c -O1 -g -fsanitize=fuzzer-no-link,address -ISources/CCRC32C/include \
    Sources/CCRC32C/crc32c.c -o "$out/crc32c.o"
swiftc -sanitize=fuzzer,address -parse-as-library -D FUZZING -module-name LogStore -package-name Logbook \
    -Xcc -fmodule-map-file="$out/module.modulemap" -I "$out" \
    $(find Sources/LogStore -name '*.swift') Tests/CrashTests/Support/FuzzOpenStore.swift \
    Tests/Fuzz/FuzzMain.swift "$out/crc32c.o" -o "$out/open" 2>&1 | grep -v "Cannot export local symbol" || true
test -x "$out/open"
echo "built $out/open"
