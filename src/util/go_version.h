// The Go release that built a program, from the version string the linker
// stores in runtime.buildVersion (and the dump's params record and the build
// info repeat): "go1.24.4", "go1.21rc2", "go1.25.12 X:greenteagc",
// "go1.27.4-X:nogreenteagc,mapsplitgroup". The runtime's layouts change by
// release and by GOEXPERIMENT, so readers decide their layout once from
// this, at the boundary, never by testing version strings in their loops.
#pragma once

#include <optional>
#include <string_view>

namespace goheap {

struct GoVersion {
  // 24 for go1.24.4; nullopt for "devel ..." and strings that are no version.
  std::optional<int> minor;
  // The experiments that differ from the release's defaults, as the linker
  // appends them after "X:" ("nogreenteagc,mapsplitgroup"); empty if none.
  std::string_view experiments;

  bool atLeast(int m) const { return minor && *minor >= m; }
  // Whether GOEXPERIMENT turned `name` on ("greenteagc") or, with its "no"
  // prefix, off ("nogreenteagc").
  bool hasExperiment(std::string_view name) const;
};

// Parses what the linker writes; views point into `version`.
GoVersion parseGoVersion(std::string_view version);

}  // namespace goheap
