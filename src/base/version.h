/*
 * version.h - the release version, shown by --version and the server.
 */
#ifndef GT_VERSION_H
#define GT_VERSION_H

#define GT_VERSION "0.1.0"

#endif
