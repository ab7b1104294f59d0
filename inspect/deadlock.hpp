// Deadlock analysis of point-to-point waits (SPEC §7): from every rank's
// blocked-in call and queues, the wait-for graph (rank A waits for rank B),
// and a diagnosis in plain words: the cycle, the rank waited for that has
// already finished, the message that sits unexpected with the wrong tag, or,
// when the job is not deadlocked, why not (who is still computing).
//
// Collectives arrive with their issue; their waits will add edges here.
#pragma once

#include <nlohmann/json.hpp>

namespace mpf::inspect {

// {"deadlocked": bool, "explanation": [lines], "waits_for": {rank: [ranks]}}
// from the document read_job() makes.
nlohmann::json analyse_deadlock(const nlohmann::json& job);

}  // namespace mpf::inspect
