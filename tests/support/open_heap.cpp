#include "support/open_heap.h"

namespace goheap::testing {

Expected<SessionPtr> openSession(const std::string& dump, const std::string& exe, bool types) {
  NullSink quiet;
  query::OpenOptions options;
  options.type_objects = types;
  return query::open(goheap::query::Source::fromArgument(dump, exe), quiet, options);
}

Expected<SnapshotPtr> openSnapshot(const std::string& dump, const std::string& exe, bool types) {
  Expected<SessionPtr> session = openSession(dump, exe, types);
  if (!session) return session.error();
  const SessionPtr s = session.take();
  return SnapshotPtr(s, &s->snapshot());  // shares the Session's lifetime
}

Status reopenWithExecutable(SnapshotPtr& snap, const std::string& exe, bool types) {
  Expected<SnapshotPtr> reopened = openSnapshot(snap->model.file().path(), exe, types);
  if (!reopened) return reopened.error();
  snap = reopened.take();
  if (snap->exe == nullptr) return Error(snap->exe_problem);
  return Status::success();
}

Status typesOf(const analysis::Snapshot& snap) {
  if (snap.types != nullptr) return Status::success();
  return Error(snap.exe == nullptr ? "no executable" : snap.types_problem);
}

SessionPtr sessionOf(std::unique_ptr<analysis::Snapshot> snapshot) {
  return std::make_shared<const query::Session>(std::move(snapshot));
}

}  // namespace goheap::testing
