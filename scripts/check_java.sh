#!/usr/bin/env bash
# Fail early, with a clear message, when the Java that PySpark will launch is missing or too old.
# PySpark 4 needs Java 17+. Like PySpark's launcher, use $JAVA_HOME/bin/java when JAVA_HOME is set,
# else `java` on PATH.
set -euo pipefail

required=17

if [[ -n "${JAVA_HOME:-}" ]]; then
    java_bin="${JAVA_HOME}/bin/java"
else
    java_bin="$(command -v java || true)"
fi

fail() {
    echo "table_diff needs Java ${required} or newer (found $1)." \
        "Install e.g. \`apt-get install openjdk-17-jre-headless\` and set JAVA_HOME" >&2
    exit 1
}

if [[ -z "${java_bin}" || ! -x "${java_bin}" ]]; then
    fail "${java_bin:-no java on PATH and JAVA_HOME unset}${java_bin:+: not executable}"
fi

# First line is e.g.: openjdk version "17.0.15" 2025-04-15 | java version "1.8.0_351" | ... "21"
version_line="$("${java_bin}" -version 2>&1 | head -n 1)"
version="$(sed -n 's/.*version "\([^"]*\)".*/\1/p' <<<"${version_line}")"
if [[ -z "${version}" ]]; then
    fail "unrecognised version output from ${java_bin}: '${version_line}'"
fi

major="${version%%.*}"
if [[ "${major}" == "1" ]]; then  # 1.8.0_351 -> 8
    major="$(cut -d. -f2 <<<"${version}")"
fi
major="${major%%[!0-9]*}"  # 17-ea -> 17

if [[ -z "${major}" ]] || (( major < required )); then
    fail "Java ${version} at ${java_bin}"
fi

echo "Java ${version} (${java_bin}): ok"
