// Action profile members and groups, held to P4Runtime's rules (p4runtime spec,
// "ActionProfileMember" and "ActionProfileGroup"): a member is an action with its
// arguments, one of the actions of the tables the profile serves; a group is a set of
// members a selector chooses from. Ids are the control plane's; a member or group still
// named by an entry, a default or a group cannot be deleted.
#include <algorithm>

#include "table_updates.h"
#include "update_util.h"

namespace dpusim::p4 {

// Named apart from the other update files' helpers, with which a unity batch compiles this.
namespace profile_updates {
namespace {

// What an update of one member or group of a profile works on.
struct ProfileUpdate {
  const Program& program;
  int profile;  // its index
  const ActionProfileInfo& info;
  ActionProfileState& prof;
  const TableUpdate& u;
  std::uint32_t id;
  std::string pn;  // "action profile 'p'"
  UpdateError* error;

  bool refuse(UpdateCode code, const std::string& message) const {
    *error = fail(code, message);
    return false;
  }
  // An INSERT of a new id, a MODIFY of an existing one, within max_size; `what` is "member" or
  // "group", `full` what the profile is full of.
  bool check_presence(bool exists, const char* what, UpdateCode missing, std::size_t held, const std::string& full) const {
    if (u.type == UpdateType::kInsert && exists)
      return refuse(UpdateCode::kDuplicateMember, pn + " already has a " + what + " " + std::to_string(id));
    if (u.type == UpdateType::kModify && !exists)
      return refuse(missing, pn + " has no " + what + " " + std::to_string(id) + " to modify");
    if (u.type == UpdateType::kInsert && info.max_size > 0 && held >= info.max_size)
      return refuse(UpdateCode::kProfileFull, pn + " " + full + " (max_size " + std::to_string(info.max_size) + ")");
    return true;
  }
  // The members named by a group count its references; the last one gone erases the count.
  void refer(const std::vector<std::uint32_t>& members, int delta) const {
    for (std::uint32_t m : members) {
      std::uint32_t& n = prof.member_refs[m];
      n = static_cast<std::uint32_t>(static_cast<std::int64_t>(n) + delta);
      if (n == 0) prof.member_refs.erase(m);
    }
  }
};

bool member(const ProfileUpdate& p) {
  const TableUpdate& u = p.u;
  if (!u.members.empty()) return p.refuse(UpdateCode::kBadRecord, p.pn + ": a member update lists no members");
  const bool exists = p.prof.members.count(p.id) != 0;
  if (u.type == UpdateType::kDelete) {
    if (!exists) return p.refuse(UpdateCode::kNoSuchMember, p.pn + " has no member " + std::to_string(p.id) + " to delete");
    if (p.prof.member_refs.count(p.id))
      return p.refuse(UpdateCode::kInUse, p.pn + " member " + std::to_string(p.id) + " is still named by " +
                                              std::to_string(p.prof.member_refs.at(p.id)) + " entries or groups");
    p.prof.members.erase(p.id);
    return true;
  }
  if (!p.check_presence(exists, "member", UpdateCode::kNoSuchMember, p.prof.members.size(), "full")) return false;
  // The action must be one of the tables' that the profile serves.
  int action = -1;
  UpdateError first;
  for (const TableInfo& t : p.program.tables) {
    if (t.profile != p.profile) continue;
    UpdateError e;
    action = table_action(p.program, t, u.action, &e);
    if (action >= 0) break;
    if (first.message.empty()) first = e;
  }
  if (action < 0) {
    *p.error = first.message.empty() ? fail(UpdateCode::kUnknownProfile, p.pn + " serves no table") : first;
    return false;
  }
  ProfileMember m;
  m.action = action;
  const ActionInfo& a = p.program.actions[static_cast<std::size_t>(action)];
  if (!action_arguments(a, u, a.data_limbs, &m.data, p.error)) return false;
  p.prof.members[p.id] = std::move(m);
  return true;
}

bool group(const ProfileUpdate& p) {
  const TableUpdate& u = p.u;
  if (p.info.selector < 0) return p.refuse(UpdateCode::kIndirect, p.pn + " has no selector: it has members, not groups");
  if (!u.action.empty() || !u.params.empty()) return p.refuse(UpdateCode::kBadRecord, p.pn + ": a group update names members, not an action");
  const bool exists = p.prof.groups.count(p.id) != 0;
  if (u.type == UpdateType::kDelete) {
    if (!exists) return p.refuse(UpdateCode::kNoSuchGroup, p.pn + " has no group " + std::to_string(p.id) + " to delete");
    if (p.prof.group_refs.count(p.id))
      return p.refuse(UpdateCode::kInUse, p.pn + " group " + std::to_string(p.id) + " is still named by " +
                                              std::to_string(p.prof.group_refs.at(p.id)) + " entries");
    p.refer(p.prof.groups[p.id], -1);
    p.prof.groups.erase(p.id);
    return true;
  }
  if (!p.check_presence(exists, "group", UpdateCode::kNoSuchGroup, p.prof.groups.size(), "full of groups")) return false;
  std::vector<std::uint32_t> members = u.members;
  std::sort(members.begin(), members.end());
  for (std::size_t k = 0; k < members.size(); ++k) {
    if (!p.prof.members.count(members[k]))
      return p.refuse(UpdateCode::kNoSuchMember,
                      p.pn + " has no member " + std::to_string(members[k]) + " for group " + std::to_string(p.id));
    if (k > 0 && members[k] == members[k - 1])
      return p.refuse(UpdateCode::kDuplicateMember,
                      p.pn + " group " + std::to_string(p.id) + " lists member " + std::to_string(members[k]) + " twice");
  }
  if (exists) p.refer(p.prof.groups[p.id], -1);
  p.refer(members, 1);
  // A selector picks the n-th member in id order (bmv2 orders a group by member handle).
  p.prof.groups[p.id] = std::move(members);
  return true;
}

}  // namespace
}  // namespace profile_updates

bool TableUpdates::apply_profile(const TableUpdate& u, UpdateError* error) {
  if (!printable(u.action_profile)) {
    *error = fail(UpdateCode::kBadName, "the action profile name is empty or not printable ASCII");
    return false;
  }
  auto it = program.action_profile_by_name.find(u.action_profile);
  if (it == program.action_profile_by_name.end()) {
    *error = fail(UpdateCode::kUnknownProfile, "no action profile named '" + u.action_profile + "'");
    return false;
  }
  const ActionProfileInfo& info = program.action_profiles[static_cast<std::size_t>(it->second)];
  const std::string pn = "action profile '" + info.name + "'";
  if (!u.table.empty() || !u.match.empty() || u.priority || u.member.has_value() == u.group.has_value() ||
      u.type == UpdateType::kDefault) {
    *error = fail(UpdateCode::kBadRecord, pn + ": an INSERT, MODIFY or DELETE of one member or one group (no table, match or priority)");
    return false;
  }
  const std::uint32_t id = u.member ? *u.member : *u.group;
  if (id > kIndirectIdMask) {
    *error = fail(UpdateCode::kBadRecord, pn + ": id " + std::to_string(id) + " is above " + std::to_string(kIndirectIdMask));
    return false;
  }
  const profile_updates::ProfileUpdate p{program, it->second, info, runtime.profiles[static_cast<std::size_t>(it->second)],
                                         u, id, pn, error};
  return u.member ? profile_updates::member(p) : profile_updates::group(p);
}

}  // namespace dpusim::p4
