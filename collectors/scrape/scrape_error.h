#pragma once
// A finished request's outcome (the value is scrape/scrape_outcome.h) and
// the bearer token a scrape sends.
#include <string>

#include "scrape/http_client.h"
#include "scrape/scrape_outcome.h"

namespace plegscope {

// Maps a finished request to an outcome; a 2xx maps to none.
ScrapeOutcome outcome_of(const HttpResult& result);

// Reads a bearer token file (trailing whitespace trimmed); false when the
// file cannot be read.
bool read_token_file(const std::string& path, std::string& token, std::string& error);

}  // namespace plegscope
