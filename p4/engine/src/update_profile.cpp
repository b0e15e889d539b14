// Action profile members and groups, held to P4Runtime's rules (p4runtime spec,
// "ActionProfileMember" and "ActionProfileGroup"): a member is an action with its
// arguments, one of the actions of the tables the profile serves; a group is a set of
// members a selector chooses from. Ids are the control plane's; a member or group still
// named by an entry, a default or a group cannot be deleted.
#include <algorithm>

#include "engine_impl.h"
#include "update_util.h"

namespace dpusim::p4 {

bool Engine::Impl::apply_profile(const TableUpdate& u, UpdateError* error) {
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
  ActionProfileState& prof = runtime.profiles[static_cast<std::size_t>(it->second)];
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
  if (u.member) {
    if (!u.members.empty()) {
      *error = fail(UpdateCode::kBadRecord, pn + ": a member update lists no members");
      return false;
    }
    const bool exists = prof.members.count(id) != 0;
    if (u.type == UpdateType::kDelete) {
      if (!exists) {
        *error = fail(UpdateCode::kNoSuchMember, pn + " has no member " + std::to_string(id) + " to delete");
        return false;
      }
      if (prof.member_refs.count(id)) {
        *error = fail(UpdateCode::kInUse, pn + " member " + std::to_string(id) + " is still named by " +
                                              std::to_string(prof.member_refs.at(id)) + " entries or groups");
        return false;
      }
      prof.members.erase(id);
      return true;
    }
    if (u.type == UpdateType::kInsert && exists) {
      *error = fail(UpdateCode::kDuplicateMember, pn + " already has a member " + std::to_string(id));
      return false;
    }
    if (u.type == UpdateType::kModify && !exists) {
      *error = fail(UpdateCode::kNoSuchMember, pn + " has no member " + std::to_string(id) + " to modify");
      return false;
    }
    if (u.type == UpdateType::kInsert && info.max_size > 0 && prof.members.size() >= info.max_size) {
      *error = fail(UpdateCode::kProfileFull, pn + " full (max_size " + std::to_string(info.max_size) + ")");
      return false;
    }
    // The action must be one of the tables' that the profile serves.
    int action = -1;
    UpdateError first;
    for (const TableInfo& t : program.tables) {
      if (t.profile != it->second) continue;
      UpdateError e;
      action = table_action(program, t, u.action, &e);
      if (action >= 0) break;
      if (first.message.empty()) first = e;
    }
    if (action < 0) {
      *error = first.message.empty() ? fail(UpdateCode::kUnknownProfile, pn + " serves no table") : first;
      return false;
    }
    ProfileMember m;
    m.action = action;
    const ActionInfo& a = program.actions[static_cast<std::size_t>(action)];
    if (!action_arguments(a, u, a.data_limbs, &m.data, error)) return false;
    prof.members[id] = std::move(m);
    return true;
  }
  // A group.
  if (info.selector < 0) {
    *error = fail(UpdateCode::kIndirect, pn + " has no selector: it has members, not groups");
    return false;
  }
  if (!u.action.empty() || !u.params.empty()) {
    *error = fail(UpdateCode::kBadRecord, pn + ": a group update names members, not an action");
    return false;
  }
  const bool exists = prof.groups.count(id) != 0;
  auto refer = [&](const std::vector<std::uint32_t>& members, int delta) {
    for (std::uint32_t m : members) {
      std::uint32_t& n = prof.member_refs[m];
      n = static_cast<std::uint32_t>(static_cast<std::int64_t>(n) + delta);
      if (n == 0) prof.member_refs.erase(m);
    }
  };
  if (u.type == UpdateType::kDelete) {
    if (!exists) {
      *error = fail(UpdateCode::kNoSuchGroup, pn + " has no group " + std::to_string(id) + " to delete");
      return false;
    }
    if (prof.group_refs.count(id)) {
      *error = fail(UpdateCode::kInUse, pn + " group " + std::to_string(id) + " is still named by " +
                                            std::to_string(prof.group_refs.at(id)) + " entries");
      return false;
    }
    refer(prof.groups[id], -1);
    prof.groups.erase(id);
    return true;
  }
  if (u.type == UpdateType::kInsert && exists) {
    *error = fail(UpdateCode::kDuplicateMember, pn + " already has a group " + std::to_string(id));
    return false;
  }
  if (u.type == UpdateType::kModify && !exists) {
    *error = fail(UpdateCode::kNoSuchGroup, pn + " has no group " + std::to_string(id) + " to modify");
    return false;
  }
  if (u.type == UpdateType::kInsert && info.max_size > 0 && prof.groups.size() >= info.max_size) {
    *error = fail(UpdateCode::kProfileFull, pn + " full of groups (max_size " + std::to_string(info.max_size) + ")");
    return false;
  }
  std::vector<std::uint32_t> members = u.members;
  std::sort(members.begin(), members.end());
  for (std::size_t k = 0; k < members.size(); ++k) {
    if (!prof.members.count(members[k])) {
      *error = fail(UpdateCode::kNoSuchMember, pn + " has no member " + std::to_string(members[k]) + " for group " + std::to_string(id));
      return false;
    }
    if (k > 0 && members[k] == members[k - 1]) {
      *error = fail(UpdateCode::kDuplicateMember, pn + " group " + std::to_string(id) + " lists member " + std::to_string(members[k]) + " twice");
      return false;
    }
  }
  if (exists) refer(prof.groups[id], -1);
  refer(members, 1);
  // A selector picks the n-th member in id order (bmv2 orders a group by member handle).
  prof.groups[id] = std::move(members);
  return true;
}

}  // namespace dpusim::p4
