#pragma once
// Training-step analysis (placeholder; see issue 4 part 3).
