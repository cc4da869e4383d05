#pragma once
// The last relists (600 by default: ten minutes at the kubelet's period), the
// measured history every diagnosis rests on.
#include "common/bounded_history.h"
#include "pleg/relist_record.h"

namespace plegscope {

using RelistRecorder = BoundedHistory<RelistRecord>;

}  // namespace plegscope
