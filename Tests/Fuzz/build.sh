#!/usr/bin/env bash
# Builds the libFuzzer targets (see README.md) into .build/fuzz: `open`, `frames`, `hints` and
# `keysdir` (the LogStore module with a fuzz body compiled in), `objects`, `predicates` and
# `sidecar` (the Logbook module over a fuzz-instrumented LogStore), `import` (the logbook
# tool's import parsers over both) and `http` (the studio's request parser). Arguments name the
# targets to build (default: all).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=.build/fuzz
mkdir -p "$out"
targets=("${@:-open frames hints keysdir objects predicates sidecar import http}")
targets=(${targets[*]})
wants() { [[ " ${targets[*]} " == *" $1 "* ]]; }
# LogStore's C targets (see Package.swift): a module map naming every header of each, and one
# object file of all their sources.
c_targets=(CCRC32C CKeyDirectory)
: > "$out/module.modulemap"
includes=()
for target in "${c_targets[@]}"; do
    includes+=(-I"Sources/$target/include")
    {
        echo "module $target {"
        for header in Sources/"$target"/include/*.h; do echo "    header \"$PWD/$header\""; done
        echo "    export *"
        echo "}"
    } >> "$out/module.modulemap"
done
quiet() { grep -v "Cannot export local symbol" || true; }
# Extra swiftc flags: LOGBOOK_FUZZ_SWIFTFLAGS=-O for long runs (several times the executions a
# second; the default builds faster, which is what CI needs).
flags=${LOGBOOK_FUZZ_SWIFTFLAGS:-}
c_objects=()
for source in $(for target in "${c_targets[@]}"; do ls Sources/"$target"/*.c; done); do
    object="$out/$(basename "$source" .c).o"
    clang -c -O1 -g -fsanitize=fuzzer-no-link,address "${includes[@]}" "$source" -o "$object"
    c_objects+=("$object")
done
# A target that is the LogStore module with a fuzz body and a main compiled in: name, then files.
logstore_target() {
    local name=$1
    shift
    rm -f "$out/$name"
    swiftc -sanitize=fuzzer,address $flags -parse-as-library -D FUZZING -module-name LogStore \
        -package-name Logbook -Xcc -fmodule-map-file="$out/module.modulemap" -I "$out" \
        $(find Sources/LogStore -name '*.swift') "$@" "${c_objects[@]}" -o "$out/$name" 2>&1 | quiet
    test -x "$out/$name"
    echo "built $out/$name"
}
if wants open; then
    logstore_target open Tests/CrashTests/Support/FuzzOpenStore.swift Tests/Fuzz/FuzzMain.swift
fi
# The decoder bodies (frame scanner, hint files) and what they share.
support=Tests/LogStoreTests/Support
decoders=("$support/ByteFileSystem.swift" "$support/FuzzFixtures.swift" "$support/FuzzFrames.swift"
    "$support/FuzzHints.swift")
if wants frames; then logstore_target frames "${decoders[@]}" Tests/Fuzz/FuzzFramesMain.swift; fi
if wants hints; then logstore_target hints "${decoders[@]}" Tests/Fuzz/FuzzHintsMain.swift; fi
if wants keysdir; then
    logstore_target keysdir "$support/ByteFileSystem.swift" "$support/FuzzKeyDirectory.swift" \
        "$support/FuzzKeyDirectoryLoad.swift" Tests/Fuzz/FuzzKeyDirectoryMain.swift
fi
# Targets of the object layer: LogStore as a module of its own first (no fuzz body, built once),
# then the Logbook module with a fuzz body and a main compiled in: name, then files.
logstore_module() {
    [[ -n "${logstore_built:-}" ]] && return
    swiftc -sanitize=fuzzer,address $flags -parse-as-library -module-name LogStore -package-name Logbook -wmo \
        -emit-module -emit-module-path "$out/LogStore.swiftmodule" -emit-object -o "$out/LogStore.o" \
        -Xcc -fmodule-map-file="$out/module.modulemap" -I "$out" $(find Sources/LogStore -name '*.swift') 2>&1 | quiet
    logstore_built=1
}
logbook_target() {
    local name=$1
    shift
    logstore_module
    rm -f "$out/$name"
    swiftc -sanitize=fuzzer,address $flags -parse-as-library -D FUZZING -module-name Logbook -package-name Logbook \
        -Xcc -fmodule-map-file="$out/module.modulemap" -I "$out" \
        $(find Sources/Logbook -name '*.swift') "$@" "$out/LogStore.o" "${c_objects[@]}" -o "$out/$name" 2>&1 | quiet
    test -x "$out/$name"
    echo "built $out/$name"
}
if wants objects; then
    logbook_target objects Tests/LogbookTests/Support/FuzzObjects.swift Tests/Fuzz/FuzzObjectsMain.swift
fi
if wants predicates; then
    logbook_target predicates Tests/LogbookTests/Support/FuzzPredicates.swift \
        Tests/Fuzz/FuzzPredicatesMain.swift
fi
if wants sidecar; then
    logbook_target sidecar Tests/LogbookTests/Support/FuzzSidecar.swift Tests/Fuzz/FuzzSidecarMain.swift
fi
if wants import; then
    # `import`: Logbook as a module of its own too, then the tool's sources but main.swift.
    logstore_module
    swiftc -sanitize=fuzzer,address $flags -parse-as-library -module-name Logbook -package-name Logbook -wmo \
        -emit-module -emit-module-path "$out/Logbook.swiftmodule" -emit-object -o "$out/Logbook.o" \
        -Xcc -fmodule-map-file="$out/module.modulemap" -I "$out" $(find Sources/Logbook -name '*.swift') 2>&1 | quiet
    rm -f "$out/import"
    swiftc -sanitize=fuzzer,address $flags -parse-as-library -D FUZZING -module-name logbook -package-name Logbook \
        -Xcc -fmodule-map-file="$out/module.modulemap" -I "$out" \
        $(find Sources/logbook -name '*.swift' ! -name main.swift) Tests/Fuzz/FuzzImport.swift \
        Tests/Fuzz/FuzzImportMain.swift "$out/Logbook.o" "$out/LogStore.o" "${c_objects[@]}" \
        -o "$out/import" 2>&1 | quiet
    test -x "$out/import"
    echo "built $out/import"
fi
if wants http; then
    # `http`: the request parser of `logbook studio`, a pure function of bytes (standard library only).
    rm -f "$out/http"
    swiftc -sanitize=fuzzer,address $flags -parse-as-library -D FUZZING -module-name HTTPFuzz \
        Sources/logbook/Studio/HTTP/HTTPRequest.swift Sources/logbook/Studio/HTTP/HTTPRequestParser.swift \
        Tests/StudioTests/Support/FuzzHTTPRequest.swift Tests/Fuzz/FuzzHTTPMain.swift -o "$out/http" 2>&1 | quiet
    test -x "$out/http"
    echo "built $out/http"
fi
