#pragma once
// Where the checkout's files are, for tests that read fixtures, docs or
// sources. Compiled into one small object, so that the checkout's path (which
// differs in every clone) reaches no other object and ccache can share them.
#include <string>

namespace source_tree {

const std::string& root();      // the checkout's root
const std::string& fixtures();  // tests/fixtures under it

}  // namespace source_tree
