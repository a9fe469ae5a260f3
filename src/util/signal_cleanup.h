// Files to remove when the run is interrupted (SIGINT, SIGTERM, SIGHUP):
// an output's temporary file, a downloaded or snapped heap. The first call
// installs handlers that remove every registered file and then die of the
// signal, as the run would have without them. A signal the caller chose to
// ignore (nohup) stays ignored. At most 16 files at once; a further one is
// not registered (it is still removed by its owner, just not on a signal).
#pragma once

#include <string>

namespace goheap {

// Registers `path`; returns the slot to give keepOnSignal(), or -1.
int removeOnSignal(const std::string& path);
// Forgets the slot (the file was renamed into place or removed): -1 is a no-op.
void keepOnSignal(int slot);

// Installs the handlers now, if no registration did yet: a front end that
// handles the signals itself for a while (util's handlers back after) calls
// it first, so that a later registration does not put them over its own.
void installSignalCleanup();

// Removes the registered files now, as the handlers do: for a front end
// that handles SIGINT itself (snap) and ends the run another way.
void removeRegisteredFiles();

}  // namespace goheap
