#pragma once
// Shared by the basic-auth and server tests.
#include <string>

namespace plegscope::testing {

// bcrypt, cost 4 (the minimum, so the tests stay fast): "secret" and "other".
const std::string kSecretHash = "$2b$04$aL9/To3mk.3YddN2avwX8ePd8EWAqj1g6A6sbLNkApe5Wo8ldnNnO";
const std::string kOtherHash = "$2y$04$9Kw5OQe/sX1G3H57uY6yRek9SfGkkoBPm5eDg/9AjfBTMUk2CvNxq";

}  // namespace plegscope::testing
