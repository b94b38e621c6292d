"""Shell completion through the installed entry point (`pinchpoint.cli:main`), checked with
real shells: the script `--show-completion bash` prints is sourced, and its completion function
asks `pinchpoint` for the words, past the quick path that answers `--help` without Typer; the
scripts `--install-completion zsh|fish` write are loaded as a new interactive shell loads them
and asked for what Tab offers (zsh and fish from scripts/install-system-deps.sh)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

BASH = shutil.which("bash")
ZSH = shutil.which("zsh")
FISH = shutil.which("fish")
pytestmark = pytest.mark.skipif(BASH is None, reason="bash is not installed")
TIMEOUT_S = 120


@pytest.fixture
def on_path(tmp_path: Path) -> dict[str, str]:
    """An environment whose PATH holds a `pinchpoint` that is the console script: this
    interpreter calling `pinchpoint.cli:main`."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "pinchpoint"
    script.write_text(
        f"#!{sys.executable}\nimport sys\nfrom pinchpoint.cli import main\nsys.exit(main())\n"
    )
    script.chmod(0o755)
    home = tmp_path / "home"
    home.mkdir()
    return {
        "PATH": f"{bin_dir}{os.pathsep}/usr/bin:/bin",
        "PYTHONPATH": os.pathsep.join(sys.path),
        "HOME": str(home),
        "COLUMNS": "80",
    }


def bash(command: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    assert BASH is not None
    return subprocess.run(
        [BASH, "--noprofile", "--norc", "-c", command],
        capture_output=True,
        text=True,
        env=env,
        timeout=TIMEOUT_S,
        check=False,
    )


def completions(words: list[str], env: dict[str, str]) -> list[str]:
    """What bash offers for the last of `words` after sourcing `--show-completion bash`."""
    quoted = " ".join(f"'{word}'" for word in words)
    done = bash(
        "source <(pinchpoint --show-completion bash) || exit 3\n"
        f"COMP_WORDS=({quoted}); COMP_CWORD={len(words) - 1}\n"
        "_pinchpoint_completion pinchpoint\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n',
        env,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_the_bash_script_registers_the_completion(on_path: dict[str, str]) -> None:
    done = bash("source <(pinchpoint --show-completion bash) && complete -p pinchpoint", on_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "complete -o default -F _pinchpoint_completion pinchpoint"


def test_bash_completes_commands_options_and_formats(on_path: dict[str, str]) -> None:
    assert completions(["pinchpoint", "ch"], on_path) == ["check"]
    assert completions(["pinchpoint", "stats", "sh"], on_path) == ["show"]
    assert "--format" in completions(["pinchpoint", "check", "--fo"], on_path)
    # each command offers the formats it prints
    assert completions(["pinchpoint", "capture", "--format", ""], on_path) == ["table", "json"]
    assert completions(["pinchpoint", "check", "-f", "m"], on_path) == ["markdown"]
    assert completions(["pinchpoint", "--show-completion", ""], on_path) == [
        "bash",
        "zsh",
        "fish",
    ]


def test_install_completion_writes_what_bash_sources(on_path: dict[str, str]) -> None:
    done = bash("pinchpoint --install-completion bash", on_path)
    assert done.returncode == 0, done.stderr
    home = Path(on_path["HOME"])
    script = home / ".bash_completions" / "pinchpoint.sh"
    assert f"bash completion installed in {script}" in done.stdout
    assert f"source '{script}'" in (home / ".bashrc").read_text()
    registered = bash('source "$HOME/.bashrc" && complete -p pinchpoint', on_path)
    assert registered.stdout.strip().endswith("_pinchpoint_completion pinchpoint")


def test_zsh_and_fish_scripts(on_path: dict[str, str]) -> None:
    zsh = bash("pinchpoint --show-completion zsh", on_path)
    assert zsh.returncode == 0 and "compdef _pinchpoint_completion pinchpoint" in zsh.stdout
    fish = bash("pinchpoint --show-completion fish", on_path)
    assert fish.returncode == 0 and "complete --command pinchpoint" in fish.stdout


@pytest.mark.parametrize("argv", [["--show-completion", "tcsh"], ["--show-completion"]])
def test_a_shell_it_cannot_complete_is_a_usage_error(
    on_path: dict[str, str], argv: list[str]
) -> None:
    done = subprocess.run(
        ["pinchpoint", *argv],
        capture_output=True,
        text=True,
        env=on_path,
        timeout=TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 2
    message = " ".join(done.stderr.split())
    assert ("'tcsh': use bash, zsh, fish" if argv[1:] else "requires an argument") in message


# An interactive zsh under a pseudo-terminal (zsh/zpty) that loads the user's ~/.zshrc, as a new
# terminal does, then types `$1` and Tab once: each candidate the completion adds is printed
# between two NUL lines (the technique of zsh-capture-completion).
ZSH_TAB = r"""
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "source ${0:h}/tab-init.zsh"
zpty -w z "$1"$'\t'
integer seen=0
while zpty -r z line; do
  if [[ $line == *$'\0'* ]]; then (( seen++ )) && break || continue; fi
  (( seen )) && print -r -- "${line%$'\r'}"
done
zpty -d z
"""
ZSH_TAB_INIT = r"""
PROMPT=
source ~/.zshrc
bindkey '^I' complete-word
null-line () { echo -E - $'\0' }
compprefuncs=( null-line )
comppostfuncs=( null-line exit )
zstyle ':completion:*' list-grouped false
zstyle ':completion:*' insert-tab false
compadd () {
  if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return $?; fi
  typeset -a __hits
  builtin compadd -A __hits "$@"
  for i in {1..$#__hits}; do echo -E - ${__hits[$i]}; done
}
"""


@pytest.fixture
def zsh_tab(on_path: dict[str, str], tmp_path: Path) -> Callable[[str], list[str]]:
    """What one Tab after a line offers in a new zsh, after `--install-completion zsh`."""
    if ZSH is None:
        pytest.skip("zsh is not installed (scripts/install-system-deps.sh)")
    done = bash("pinchpoint --install-completion zsh", on_path)
    assert done.returncode == 0, done.stderr
    assert f"{on_path['HOME']}/.zfunc/_pinchpoint" in done.stdout
    (tmp_path / "tab.zsh").write_text(ZSH_TAB)
    (tmp_path / "tab-init.zsh").write_text(ZSH_TAB_INIT)

    def tab(line: str) -> list[str]:
        assert ZSH is not None
        typed = subprocess.run(
            [ZSH, "-f", str(tmp_path / "tab.zsh"), line],
            capture_output=True,
            text=True,
            env=on_path,
            timeout=TIMEOUT_S,
            check=False,
        )
        assert typed.returncode == 0, typed.stderr
        return [word for word in typed.stdout.split("\n") if word.strip()]

    return tab


def test_zsh_completes_on_the_first_tab_of_a_new_shell(zsh_tab: Callable[[str], list[str]]) -> None:
    # each call is a new shell: the script is autoloaded by this very Tab
    assert zsh_tab("pinchpoint st") == ["stats"]
    assert zsh_tab("pinchpoint stats d") == ["diff"]
    assert "--format" in zsh_tab("pinchpoint check --fo")


@pytest.mark.skipif(FISH is None, reason="fish is not installed (scripts/install-system-deps.sh)")
def test_fish_completes_what_install_completion_wrote(on_path: dict[str, str]) -> None:
    done = bash("pinchpoint --install-completion fish", on_path)
    assert done.returncode == 0, done.stderr
    script = Path(on_path["HOME"]) / ".config" / "fish" / "completions" / "pinchpoint.fish"
    assert f"fish completion installed in {script}" in done.stdout

    def offered(line: str) -> list[str]:
        assert FISH is not None
        asked = subprocess.run(
            [FISH, "-c", f"complete -C '{line}'"],  # fish loads it from ~/.config/fish
            capture_output=True,
            text=True,
            env=on_path,
            timeout=TIMEOUT_S,
            check=False,
        )
        assert asked.returncode == 0, asked.stderr
        return [row.split("\t")[0] for row in asked.stdout.splitlines()]

    assert offered("pinchpoint st") == ["stats"]
    assert offered("pinchpoint stats d") == ["diff"]
    assert "--format" in offered("pinchpoint check --fo")
