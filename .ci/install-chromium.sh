#!/usr/bin/env bash
# Installs headless Chromium and its WebDriver (Debian packages `chromium`, `chromium-driver`)
# for the report's browser test. Idempotent: does nothing when both are present. Tolerant:
# any failure (no root, no apt, no registry) is reported and the script still exits 0, so the
# browser test simply skips.
set -u

have() { command -v "$1" >/dev/null 2>&1; }

if have chromium && have chromedriver; then
    echo "install-chromium: chromium and chromedriver already present"
    exit 0
fi
if ! have apt-get; then
    echo "install-chromium: apt-get not found; the browser test will skip" >&2
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if have sudo && sudo -n true 2>/dev/null; then
        SUDO="sudo -n"
    else
        echo "install-chromium: not root and no passwordless sudo; the browser test will skip" >&2
        exit 0
    fi
fi
export DEBIAN_FRONTEND=noninteractive
LOCK="-o DPkg::Lock::Timeout=300"
if $SUDO apt-get $LOCK update -qq \
    && $SUDO apt-get $LOCK install -y -qq --no-install-recommends chromium chromium-driver; then
    echo "install-chromium: installed $(chromium --version 2>/dev/null || echo chromium)"
else
    echo "install-chromium: apt-get failed; the browser test will skip" >&2
fi
exit 0
