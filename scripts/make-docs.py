#!/usr/bin/env python3
"""Writes goheap's man page and bash completion from its own help.

usage: make-docs.py GOHEAP MAN_GZ COMPLETION [--emulator CMD]

GOHEAP is a built goheap (run under CMD, e.g. qemu-aarch64-static, when it is
another machine's). `goheap --help` lists the commands (the question table,
then the tools); `goheap COMMAND --help` gives each one's arguments, flags
and examples. From them:
  MAN_GZ      goheap.1, compressed as Debian wants it (gzip -9n): NAME,
              SYNOPSIS, DESCRIPTION, then a section per command
  COMPLETION  a bash completion: the commands, each command's flags, the
              values of flags that list them (--by auto|type|site|shape),
              and file names elsewhere
Both are written only when their content changed, so a build that changed no
help does not reinstall them.
"""

import gzip
import io
import re
import subprocess
import sys
from dataclasses import dataclass, field


@dataclass
class Flag:
    short: str  # "o" for -o, or ""
    long: str  # "output"
    value: str  # "FILE", "auto|type|site|shape", or "" for a switch
    text: str


@dataclass
class CommandHelp:
    name: str
    summary: str
    usage: str = ""
    description: list = field(default_factory=list)  # paragraphs
    arguments: list = field(default_factory=list)  # (name, text)
    flags: list = field(default_factory=list)
    examples: list = field(default_factory=list)  # (command, what)
    notes: list = field(default_factory=list)  # paragraphs after the flags


def run(command, emulator):
    result = subprocess.run(emulator + command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.exit(f"make-docs: {' '.join(command)} failed: {result.stderr.strip()}")
    return result.stdout


def paragraphs(lines):
    out, current = [], []
    for line in lines:
        if line.strip():
            current.append(line.strip())
        elif current:
            out.append(" ".join(current))
            current = []
    if current:
        out.append(" ".join(current))
    return out


def split_sections(text):
    """The help's blocks: the text before the first "name:" line, then each
    section ("arguments", "flags", "examples") with its lines."""
    head, sections, name = [], {}, None
    for line in text.splitlines():
        m = re.fullmatch(r"([a-z][a-z ]*):", line)
        if m:
            name = m.group(1)
            sections[name] = []
        elif name is None:
            head.append(line)
        else:
            sections[name].append(line)
    return head, sections


FLAG_LINE = re.compile(r"^  (?:-(\w), )?\s*--([\w-]+)(?: (\S+))?(?:\s{2,}(.*))?$")


def parse_flags(lines):
    flags, notes, in_notes = [], [], False
    for line in lines:
        m = FLAG_LINE.match(line)
        if m and not in_notes:
            flags.append(Flag(m.group(1) or "", m.group(2), m.group(3) or "", m.group(4) or ""))
        elif not line.strip():
            if flags:
                in_notes = True
            notes.append("")
        elif in_notes or not flags:
            notes.append(line)
        else:
            flags[-1].text = (flags[-1].text + " " + line.strip()).strip()
    return flags, paragraphs(notes)


def parse_indented_pairs(lines):
    """ "  NAME   text" lines with continuations indented further."""
    pairs = []
    for line in lines:
        m = re.match(r"^  (\S(?:.*?\S)?)(?:\s{2,}(.*))?$", line)
        if m and not line.startswith("   "):
            pairs.append([m.group(1), m.group(2) or ""])
        elif pairs and line.strip():
            pairs[-1][1] = (pairs[-1][1] + " " + line.strip()).strip()
    return [tuple(p) for p in pairs]


def parse_command(name, summary, text):
    help_ = CommandHelp(name, summary)
    head, sections = split_sections(text)
    if head and head[0].startswith("usage: "):
        help_.usage = head[0][len("usage: "):]
        head = head[1:]
    help_.description = paragraphs(head)
    help_.arguments = parse_indented_pairs(sections.get("arguments", []))
    help_.flags, help_.notes = parse_flags(sections.get("flags", []))
    help_.examples = parse_indented_pairs(sections.get("examples", []))
    return help_


def parse_overview(text):
    head, sections = split_sections(text)
    commands = parse_indented_pairs(sections.get("commands", []))
    examples = parse_indented_pairs(sections.get("examples", []))
    intro = paragraphs(head)
    return intro, commands, examples


def roff(text):
    text = text.replace("\\", "\\e").replace("-", "\\-")
    if text.startswith(".") or text.startswith("'"):
        text = "\\&" + text
    return text


def entry(font, term, text):
    """A tagged paragraph: `term` in bold (B) or italics (I), `text` under it."""
    return f".TP\n.{font} {term}\n{roff(text)}\n"


def man_page(version, intro, commands, overview_examples, helps):
    out = io.StringIO()
    w = out.write
    w(f'.TH GOHEAP 1 "" "goheap {roff(version)}" "User Commands"\n')
    w(".SH NAME\n")
    w("goheap \\- what holds a Go program's memory, and why\n")
    w(".SH SYNOPSIS\n")
    w(".B goheap\n.I COMMAND HEAP\n.RI [ EXE ]\n.RI [ flags ]\n")
    w(".br\n.B goheap\n.I COMMAND\n.B \\-\\-help\n")
    w(".SH DESCRIPTION\n")
    for p in intro:
        if p.startswith("usage:"):
            continue
        w(".PP\n" + roff(p) + "\n")
    w(".SH COMMANDS\n")
    for name, summary in commands:
        w(entry("B", roff(name), summary))
    if overview_examples:
        w(".SH EXAMPLES\n")
        for command, what in overview_examples:
            w(entry("B", roff(command), what))
    for h in helps:
        w(f'.SH "GOHEAP {roff(h.name.upper())}"\n')
        if h.usage:
            w(".B " + roff(h.usage) + "\n")
        for p in h.description:
            w(".PP\n" + roff(p) + "\n")
        if h.arguments:
            w(".SS Arguments\n")
            for arg, text in h.arguments:
                w(entry("I", roff(arg), text))
        if h.flags:
            w(".SS Flags\n")
            for f in h.flags:
                spelled = (f"\\-{f.short}, " if f.short else "") + "\\-\\-" + roff(f.long)
                value = f" \\fI{roff(f.value)}\\fR" if f.value else ""
                w(entry("B", spelled + value, f.text))
            for p in h.notes:
                w(".PP\n" + roff(p) + "\n")
        if h.examples:
            w(".SS Examples\n")
            for command, what in h.examples:
                w(entry("B", roff(command), what))
    w(".SH SEE ALSO\n")
    w("The README and docs/ of goheap's source: docs/cli\\-json.md (the JSON output), "
      "docs/sql.md (the SQL tables), docs/web\\-api.md (the HTTP API).\n")
    return out.getvalue()


def completion(commands, helps):
    lines = [
        "# bash completion for goheap, made from its commands' help (scripts/make-docs.py)",
        "_goheap() {",
        "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}",
        "  if [ \"$COMP_CWORD\" -eq 1 ]; then",
        "    COMPREPLY=($(compgen -W '" + " ".join(n for n, _ in commands) + " help' -- \"$cur\"))",
        "    return",
        "  fi",
        "  local flags='' values=''",
        "  case ${COMP_WORDS[1]} in",
    ]
    for h in helps:
        spelled = []
        for f in h.flags:
            spelled.append("--" + f.long)
            if f.short:
                spelled.append("-" + f.short)
        lines.append(f"    {h.name}) flags='{' '.join(spelled)}'")
        choices = [f for f in h.flags if "|" in f.value and re.fullmatch(r"[\w|-]+", f.value)]
        if choices:
            lines.append("      case $prev in")
            for f in choices:
                names = "--" + f.long + (f"|-{f.short}" if f.short else "")
                lines.append(f"        {names}) values='{f.value.replace('|', ' ')}' ;;")
            lines.append("      esac")
        lines.append("      ;;")
    lines += [
        "    help) COMPREPLY=($(compgen -W '" + " ".join(n for n, _ in commands) + "' -- \"$cur\"))",
        "      return ;;",
        "  esac",
        "  if [ -n \"$values\" ]; then",
        "    COMPREPLY=($(compgen -W \"$values\" -- \"$cur\"))",
        "  elif [[ $cur == -* ]]; then",
        "    COMPREPLY=($(compgen -W \"$flags\" -- \"$cur\"))",
        "  else",
        "    COMPREPLY=($(compgen -f -- \"$cur\"))",
        "  fi",
        "}",
        "complete -o filenames -F _goheap goheap",
        "",
    ]
    return "\n".join(lines)


def write_if_changed(path, data):
    try:
        with open(path, "rb") as f:
            if f.read() == data:
                return
    except FileNotFoundError:
        pass
    with open(path, "wb") as f:
        f.write(data)


def main(argv):
    emulator = []
    if "--emulator" in argv:
        i = argv.index("--emulator")
        emulator = argv[i + 1].split()
        argv = argv[:i] + argv[i + 2:]
    if len(argv) != 4:
        sys.exit(__doc__)
    goheap, man_path, completion_path = argv[1:]
    version = run([goheap, "--version"], emulator).splitlines()[0].split()[1]
    intro, commands, examples = parse_overview(run([goheap, "--help"], emulator))
    if not commands:
        sys.exit("make-docs: goheap --help listed no commands")
    helps = [parse_command(n, s, run([goheap, n, "--help"], emulator)) for n, s in commands]

    page = man_page(version, intro, commands, examples, helps).encode()
    packed = io.BytesIO()
    # gzip -9n: no name and no time in the header, as Debian requires.
    with gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=packed, mtime=0) as g:
        g.write(page)
    write_if_changed(man_path, packed.getvalue())
    write_if_changed(completion_path, completion(commands, helps).encode())


if __name__ == "__main__":
    main(sys.argv)
