#!/usr/bin/env bash
# Fetch the pinned Delta Lake and Apache Iceberg jars for Spark, and PostgreSQL's JDBC driver,
# into a project folder, once.
#
#   scripts/fetch_lakehouse_jars.sh               fetch if needed; say where the jars are
#   scripts/fetch_lakehouse_jars.sh --print-jars  same, then print the comma-separated jar list
#                                                 (the value of spark.jars) on stdout
#   scripts/fetch_lakehouse_jars.sh --print-classpath  same, colon-separated (for
#                                                 --driver-class-path / spark.driver.extraClassPath)
#   scripts/fetch_lakehouse_jars.sh --print-dir   same, then print the jar folder on stdout
#
# Versions come from spark-conf/lakehouse.env (the only place they are pinned). The jars go to
# .spark-jars/<delta>-<iceberg>/ (LAKEHOUSE_JARS_ROOT overrides .spark-jars); a `.complete` stamp
# listing every jar marks the folder complete, and a later run with the stamp fetches nothing. A
# stamp that does not list the pinned JDBC driver (written before it was pinned, or for another
# driver version) counts as incomplete: the next run fetches once more and stamps the new list.
# Jars are renamed into place, never rewritten, so a running JVM that has one open keeps its copy.
#
# The machine's own Maven client resolves the artifacts and their dependencies, so whatever its
# settings say (mirror, proxy, ~/.m2 cache) applies; Spark's `--packages` resolver (Ivy) would not
# read them. Dependencies that Spark already ships (Scala, Hadoop, Parquet, Jackson, logging,
# compression codecs) are excluded: the session uses Spark's own copies. The JDBC driver comes
# alone: its pom's runtime dependencies (checker-qual annotations; waffle-jna, optional, for Windows
# SSPI) are not needed. When `mvn` is missing and we run as root with apt-get, Maven is installed
# with `apt-get install -y maven`.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pins="${LAKEHOUSE_PINS:-${root}/spark-conf/lakehouse.env}"

die() {
    echo "fetch_lakehouse_jars: $*" >&2
    exit 1
}
say() { echo "fetch_lakehouse_jars: $*" >&2; }

mode="${1:-}"
case "${mode}" in
    "" | --print-jars | --print-classpath | --print-dir) ;;
    *) die "unknown option '${mode}' (use --print-jars, --print-classpath or --print-dir)" ;;
esac

[[ -r "${pins}" ]] || die "version pins not found: ${pins}"
# shellcheck source=../spark-conf/lakehouse.env
source "${pins}"
for var in DELTA_VERSION DELTA_ARTIFACT ICEBERG_VERSION ICEBERG_ARTIFACT \
    POSTGRES_JDBC_ARTIFACT POSTGRES_JDBC_VERSION; do
    [[ -n "${!var:-}" ]] || die "${pins} does not set ${var}"
done

dest="${LAKEHOUSE_JARS_ROOT:-${root}/.spark-jars}/${DELTA_VERSION}-${ICEBERG_VERSION}"
stamp="${dest}/.complete"
# The file name Maven gives the driver's jar (artifactId-version.jar).
jdbc_jar="${POSTGRES_JDBC_ARTIFACT#*:}-${POSTGRES_JDBC_VERSION}.jar"
jdbc="${POSTGRES_JDBC_ARTIFACT}:${POSTGRES_JDBC_VERSION}"
wanted="${DELTA_ARTIFACT}:${DELTA_VERSION}, ${ICEBERG_ARTIFACT}:${ICEBERG_VERSION} and ${jdbc}"

# True when the stamp lists the pinned JDBC driver's jar.
stamp_lists_jdbc() {
    local jar
    while IFS= read -r jar; do
        [[ "${jar}" == "${jdbc_jar}" ]] && return 0
    done <"${stamp}"
    return 1
}

# Complete = stamp present, every jar it lists present, and the pinned JDBC driver among them.
is_complete() {
    [[ -s "${stamp}" ]] || return 1
    local jar
    while IFS= read -r jar; do
        [[ -n "${jar}" && -f "${dest}/${jar}" ]] || return 1
    done <"${stamp}"
    stamp_lists_jdbc
}

report() {
    local jars
    jars="$(sed "s|^|${dest}/|" "${stamp}" | paste -sd, -)"
    case "${mode}" in
        --print-jars) echo "${jars}" ;;
        --print-classpath) echo "${jars//,/:}" ;;
        --print-dir) echo "${dest}" ;;
        *) ;;
    esac
}

if is_complete; then
    say "up to date: ${dest} ($(wc -l <"${stamp}") jars for ${wanted}); nothing fetched"
    report
    exit 0
fi
if [[ -s "${stamp}" ]] && ! stamp_lists_jdbc; then
    say "${stamp} does not list ${jdbc_jar} (pinned since it was written): fetching once more"
fi

if ! command -v mvn >/dev/null 2>&1; then
    if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
        say "mvn not found; installing Maven with apt-get (as root)"
        if ! { apt-get update && apt-get install -y maven; } >&2; then
            die "mvn not found and 'apt-get update && apt-get install -y maven' failed; install" \
                "Maven yourself (it must reach Maven Central or a mirror) and rerun"
        fi
    else
        die "mvn not found: install Maven (as root: apt-get update && apt-get install -y maven)," \
            "make sure it can reach Maven Central or your mirror, and rerun. Needed: ${wanted}"
    fi
fi

work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT

ga() { echo "<groupId>${1%%:*}</groupId><artifactId>${1#*:}</artifactId>"; }
excluded_groups=(
    org.scala-lang org.apache.hadoop org.apache.parquet com.fasterxml.jackson.core org.slf4j
    org.apache.logging.log4j org.xerial.snappy com.github.luben org.roaringbitmap io.airlift
    commons-pool commons-logging org.locationtech.jts com.google.code.findbugs org.apache.spark
)
exclusions=""
for group in "${excluded_groups[@]}"; do
    exclusions+="<exclusion><groupId>${group}</groupId><artifactId>*</artifactId></exclusion>"
done
cat >"${work}/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.table_diff</groupId>
  <artifactId>lakehouse-jars</artifactId>
  <version>0</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>$(ga "${DELTA_ARTIFACT}")<version>${DELTA_VERSION}</version>
      <exclusions>${exclusions}</exclusions></dependency>
    <dependency>$(ga "${ICEBERG_ARTIFACT}")<version>${ICEBERG_VERSION}</version>
      <exclusions>${exclusions}</exclusions></dependency>
    <dependency>$(ga "${POSTGRES_JDBC_ARTIFACT}")<version>${POSTGRES_JDBC_VERSION}</version>
      <exclusions><exclusion><groupId>*</groupId><artifactId>*</artifactId></exclusion></exclusions>
    </dependency>
  </dependencies>
</project>
EOF

dependency_plugin=3.6.1
say "fetching ${wanted} (and their dependencies) with $(command -v mvn) into ${dest}"
started=$(date +%s)
if ! mvn -B -q -Dstyle.color=never -f "${work}/pom.xml" \
    "org.apache.maven.plugins:maven-dependency-plugin:${dependency_plugin}:copy-dependencies" \
    -DincludeScope=runtime -DoutputDirectory="${work}/jars" >"${work}/mvn.log" 2>&1; then
    tail -n 15 "${work}/mvn.log" >&2
    die "Maven could not fetch ${wanted}. Missing: ${dest} (no complete copy there). Either the" \
        "network is down or Maven Central (or the mirror of your Maven settings) is unreachable," \
        "and these artifacts are not in your local Maven repository either. Restore access and" \
        "rerun \`make lakehouse-jars\`, or copy a complete ${dest##*/} folder (with .complete)" \
        "from a machine that has it. Plain parquet does not need these jars."
fi
shopt -s nullglob
fetched=("${work}"/jars/*.jar)
[[ ${#fetched[@]} -gt 0 ]] || die "Maven succeeded but produced no jars for ${wanted}"
[[ -f "${work}/jars/${jdbc_jar}" ]] ||
    die "Maven succeeded but produced no ${jdbc_jar} for ${jdbc};" \
        "it produced: $(cd "${work}/jars" && echo *.jar)"

mkdir -p "${dest}"
rm -f "${stamp}"
for jar in "${fetched[@]}"; do
    cp -f "${jar}" "${dest}/.${jar##*/}.tmp"
    mv -f "${dest}/.${jar##*/}.tmp" "${dest}/${jar##*/}"
done
(cd "${dest}" && for jar in "${fetched[@]}"; do basename "${jar}"; done | sort) >"${stamp}.tmp"
mv "${stamp}.tmp" "${stamp}"
say "fetched ${#fetched[@]} jars ($(du -sh "${dest}" | cut -f1)) in $(($(date +%s) - started))s" \
    "into ${dest}"
report
