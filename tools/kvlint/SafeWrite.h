//===- SafeWrite.h - writing files that a hostile tree cannot redirect -*- C++ -*-===//
//
// Every file kvlint writes (a baseline, an --output file, a --fix) goes
// through here. The scanned tree is written by strangers (DESIGN.md §8): a
// planted symlink, FIFO, device node or predictable temp name must never make
// kvlint write anywhere else, block, or replace a special file.
//
//  - The new text goes to an unguessable temp file in the target's directory,
//    created with O_CREAT|O_EXCL (mkostemp), then renamed over the target.
//  - The target must be absent or a regular file with one link; a symlink,
//    FIFO, device, socket, directory or hard-linked file is refused.
//  - Mode and owner of an existing target are kept, or the write is refused.
//  - Just before the rename the target is checked again: it must still be the
//    file first seen (same device and inode), or still absent.
//
//===----------------------------------------------------------------------===//
#ifndef KVLINT_TOOLS_SAFEWRITE_H
#define KVLINT_TOOLS_SAFEWRITE_H

#include <cstdint>
#include <string>

namespace kvlint {

/// Replaces Path's contents with Text atomically (either the old or the new
/// file exists, never half of one). Returns false with Err on refusal or
/// failure; the target is then unchanged.
bool writeFileAtomically(const std::string &Path, const std::string &Text, std::string &Err);

/// Reads a regular file without following a final symlink into a special
/// file, without blocking on a FIFO, and at most MaxBytes long. Returns false
/// with Err ("'x' is a FIFO, not a regular file", "... is larger than ...").
bool readRegularFile(const std::string &Path, std::string &Out, std::string &Err,
                     size_t MaxBytes = size_t(256) << 20);

/// What kind of file Path is when it is not a regular file or a directory
/// ("a FIFO", "a character device", "a socket", "a block device", "a dangling
/// symlink"); "" otherwise.
std::string specialKind(const std::string &Path);

/// Writes all N bytes of P to Fd, through short writes and EINTR. False on
/// any other error.
bool writeFd(int Fd, const char *P, size_t N);
inline bool writeFd(int Fd, const std::string &Text) { return writeFd(Fd, Text.data(), Text.size()); }

/// Reads Fd to its end into Out, through EINTR. False on a read error
/// (errno says which), or with errno EFBIG when it holds more than MaxBytes.
bool readFd(int Fd, std::string &Out, size_t MaxBytes = SIZE_MAX);

/// A stable, collision-resistant hash of Text (hex SHA-256).
std::string contentHash(const std::string &Text);

} // namespace kvlint

#endif
