// Deadlock analysis (SPEC §7): from every rank's typed wait record, its
// table of communicators and its queues, the wait-for graph (rank A waits
// for rank B), and a diagnosis in plain words: the cycle, the rank waited
// for that has already finished, the message that sits unexpected with the
// wrong tag, the collective call some members of a communicator have not
// entered or took as another operation, or, when the job is not
// deadlocked, why not (who is still computing). A rank in a collective
// waits for the members of its communicator that are not in the same call;
// a rank in a point-to-point wait for its peer (any rank for a wildcard).
#pragma once

#include <nlohmann/json.hpp>

namespace mpf::inspect {

// {"deadlocked": bool, "explanation": [lines], "waits_for": {rank: [ranks]},
//  "collectives": [groups of ranks in one collective call]} from the
// document read_job() makes (or any document of its form: the unit tests
// build their own).
nlohmann::json analyse_deadlock(const nlohmann::json& job);

}  // namespace mpf::inspect
