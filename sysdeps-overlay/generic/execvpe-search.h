/* The errors on which a PATH search goes on.
   Copyright (C) 2026 Free Software Foundation, Inc.
   This file is part of the GNU C Library.

   The GNU C Library is free software; you can redistribute it and/or
   modify it under the terms of the GNU Lesser General Public
   License as published by the Free Software Foundation; either
   version 2.1 of the License, or (at your option) any later version.

   The GNU C Library is distributed in the hope that it will be useful,
   but WITHOUT ANY WARRANTY; without even the implied warranty of
   MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
   Lesser General Public License for more details.

   You should have received a copy of the GNU Lesser General Public
   License along with the GNU C Library; if not, see
   <https://www.gnu.org/licenses/>.  */

#ifndef _EXECVPE_SEARCH_H
#define _EXECVPE_SEARCH_H 1

#include <errno.h>
#include <stdbool.h>

/* Whether execvp, having failed to execute a PATH candidate with ERR,
   tries the next one (and so posix_spawnp).  */
static inline bool
__execvpe_search_goes_on (int err)
{
  switch (err)
    {
    /* The file is missing or not executable by us (EACCES is reported
       if nothing else is found).  */
    case EACCES:
    case ENOENT:
    case ESTALE:
    case ENOTDIR:
    /* FILE is shorter than NAME_MAX, so a path component is too long.  */
    case ENAMETOOLONG:
    /* Some strange filesystems like AFS return even stranger error
       numbers.  They cannot reasonably mean anything else.  */
    case ENODEV:
    case ETIMEDOUT:
      return true;
    default:
      return false;
    }
}

#endif
