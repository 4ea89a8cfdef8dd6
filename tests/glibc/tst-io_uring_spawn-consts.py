#!/usr/bin/python3
# Test that glibc's io_uring_spawn.h constants match the kernel's.
# Copyright (C) 2026 Free Software Foundation, Inc.
# This file is part of the GNU C Library.
#
# The GNU C Library is free software; you can redistribute it and/or
# modify it under the terms of the GNU Lesser General Public
# License as published by the Free Software Foundation; either
# version 2.1 of the License, or (at your option) any later version.
#
# The GNU C Library is distributed in the hope that it will be useful,
# but WITHOUT ANY WARRANTY; without even the implied warranty of
# MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
# Lesser General Public License for more details.
#
# You should have received a copy of the GNU Lesser General Public
# License along with the GNU C Library; if not, see
# <https://www.gnu.org/licenses/>.

import argparse
import os.path
import re
import subprocess
import sys
import tempfile

import glibcextract

# io_uring_spawn.h is glibc's private copy of the part of the io_uring
# UAPI that posix_spawn uses; it cannot be included together with
# <linux/io_uring.h>.  Each name it defines is evaluated in a
# translation unit of its own and in one with the kernel's headers,
# where it may be a macro or an enumerator.
GLIBC_SOURCE = ('#include <stddef.h>\n'
                '#include <io_uring_spawn.h>\n')
KERNEL_SOURCE = ('#include <stddef.h>\n'
                 '#include <linux/auxvec.h>\n'
                 '#include <linux/io_uring.h>\n')
NAME_RE = 'AT_IO_URING_SPAWN|IORING_.*|IOSQE_.*'

# The structures io_uring_spawn.h declares, and their members.  Their
# sizes and the offset and size of each member must be the kernel's.
STRUCTS = {
    'io_uring_sqe': ('opcode', 'flags', 'ioprio', 'fd', 'off', 'addr2',
                     'cmd_op', '__pad1', 'addr', 'len', 'spawn_flags',
                     'user_data', 'buf_index', 'personality', 'optlen',
                     'addr3', '__pad2'),
    'io_uring_cqe': ('user_data', 'res', 'flags'),
    'io_sqring_offsets': ('head', 'tail', 'ring_mask', 'ring_entries',
                          'flags', 'dropped', 'array', 'resv1',
                          'user_addr'),
    'io_cqring_offsets': ('head', 'tail', 'ring_mask', 'ring_entries',
                          'overflow', 'cqes', 'flags', 'resv1',
                          'user_addr'),
    'io_uring_params': ('sq_entries', 'cq_entries', 'flags',
                        'sq_thread_cpu', 'sq_thread_idle', 'features',
                        'wq_fd', 'resv', 'sq_off', 'cq_off'),
    'io_uring_spawn_attr': ('flags', 'sigmask', 'sigdefault', 'sigignore',
                            'pgid', 'sched_policy', 'sched_priority',
                            '__resv'),
}


def list_enumerators(source_text, cc, name_re):
    """List the enumeration constants matching name_re that source_text
    declares."""
    with tempfile.TemporaryDirectory() as temp_dir:
        c_file_name = os.path.join(temp_dir, 'test.c')
        i_file_name = os.path.join(temp_dir, 'test.i')
        with open(c_file_name, 'w') as c_file:
            c_file.write(source_text)
        subprocess.check_call('%s -E -P -o %s %s'
                              % (cc, i_file_name, c_file_name), shell=True)
        with open(i_file_name, 'r') as i_file:
            text = i_file.read()
    names = set()
    for body in re.findall(r'\benum\b[^{};]*\{([^}]*)\}', text):
        for item in body.split(','):
            match = re.match(r'\s*([A-Za-z_][A-Za-z0-9_]*)', item)
            if match and re.fullmatch(name_re, match.group(1)):
                names.add(match.group(1))
    return names


def struct_exprs():
    """Return (name, C expression) pairs for the layout of STRUCTS."""
    exprs = []
    for struct, members in sorted(STRUCTS.items()):
        exprs.append(('sizeof %s' % struct, 'sizeof (struct %s)' % struct))
        for member in members:
            exprs.append(('offsetof %s.%s' % (struct, member),
                          'offsetof (struct %s, %s)' % (struct, member)))
            exprs.append(('sizeof %s.%s' % (struct, member),
                          'sizeof (((struct %s *) 0)->%s)'
                          % (struct, member)))
    return exprs


def kernel_consts(exprs, cc):
    """Compute the (name, C expression) pairs exprs with the kernel's
    headers.  Return the values and the names the kernel lacks."""
    try:
        return (glibcextract.compute_c_consts([KERNEL_SOURCE, 'START']
                                              + exprs, cc), [])
    except subprocess.CalledProcessError:
        pass
    # Find out one by one what the compiler rejected.
    known = []
    missing = []
    for name, expr in exprs:
        if glibcextract.compile_c_snippet(
                '%slong int x = (long int) (%s);' % (KERNEL_SOURCE, expr),
                cc).returncode == 0:
            known.append((name, expr))
        else:
            missing.append(name)
    return (glibcextract.compute_c_consts([KERNEL_SOURCE, 'START'] + known,
                                          cc), missing)


def main():
    """The main entry point."""
    parser = argparse.ArgumentParser(
        description="Test that glibc's io_uring_spawn.h constants "
        "match the kernel's.")
    parser.add_argument('--cc', metavar='CC',
                        help='C compiler (including options) to use')
    args = parser.parse_args()

    # Until io_uring spawn chains are in the kernel's headers, there is
    # nothing to compare with.
    if glibcextract.compile_c_snippet(
            '#include <linux/io_uring.h>\n'
            'int op = IORING_OP_CLONE;',
            args.cc).returncode != 0:
        sys.exit(77)

    names = set(glibcextract.list_macros(GLIBC_SOURCE, args.cc)[0])
    names = {name for name in names if re.fullmatch(NAME_RE, name)}
    names |= list_enumerators(GLIBC_SOURCE, args.cc, NAME_RE)
    exprs = [(name, name) for name in sorted(names)] + struct_exprs()
    glibc = glibcextract.compute_c_consts([GLIBC_SOURCE, 'START'] + exprs,
                                          args.cc)
    # <elf.h> has the auxiliary vector entry too.
    elf_expr = ('<elf.h> AT_IO_URING_SPAWN', 'AT_IO_URING_SPAWN')
    glibc.update(glibcextract.compute_c_consts(
        ['#include <elf.h>\n', 'START', elf_expr], args.cc))
    exprs.append(elf_expr)
    kernel, missing = kernel_consts(exprs, args.cc)

    ret = 0
    for name in missing:
        print('Only in glibc: %s' % name)
        ret = 1
    for name, _ in exprs:
        if name in kernel and glibc[name] != kernel[name]:
            print('Different values for %s: %s in glibc, %s in the kernel'
                  % (name, glibc[name], kernel[name]))
            ret = 1
    print('%d values compared with the kernel\'s' % len(exprs))
    sys.exit(ret)

if __name__ == '__main__':
    main()
