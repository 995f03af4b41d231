#!/usr/bin/env bash
# Installs iapdesk under PREFIX (default /usr/local): the release binary in bin/, the shipped
# themes in share/iapdesk/themes (where an installed iapdesk looks for them, beside its bin/), the
# man page in share/man/man1 and the shell completions for bash, zsh and fish.
#
#   scripts/install.sh [PREFIX]
#
# Builds the release binary first; the man page and the completions come from the binary itself
# (iapdesk man, iapdesk completions SHELL): the same page swift-argument-parser's generate-manual
# plugin writes, with no toolchain needed to make it again from an installed binary.
set -euo pipefail
cd "$(dirname "$0")/.."

prefix=${1:-/usr/local}
scripts/build-release.sh --product iapdesk
binary=.build/release/iapdesk

install -d "$prefix/bin" "$prefix/share/iapdesk/themes" "$prefix/share/man/man1" \
    "$prefix/share/bash-completion/completions" "$prefix/share/zsh/site-functions" "$prefix/share/fish/vendor_completions.d"
install -m 755 "$binary" "$prefix/bin/iapdesk"
install -m 644 themes/*.toml "$prefix/share/iapdesk/themes/"

"$prefix/bin/iapdesk" completions bash >"$prefix/share/bash-completion/completions/iapdesk"
"$prefix/bin/iapdesk" completions zsh >"$prefix/share/zsh/site-functions/_iapdesk"
"$prefix/bin/iapdesk" completions fish >"$prefix/share/fish/vendor_completions.d/iapdesk.fish"
"$prefix/bin/iapdesk" man >"$prefix/share/man/man1/iapdesk.1"
chmod 644 "$prefix/share/bash-completion/completions/iapdesk" "$prefix/share/zsh/site-functions/_iapdesk" \
    "$prefix/share/fish/vendor_completions.d/iapdesk.fish" "$prefix/share/man/man1/iapdesk.1"

echo "Installed iapdesk in $prefix/bin, its themes in $prefix/share/iapdesk/themes, man iapdesk and completions for bash, zsh and fish."
