#!/usr/bin/env bash
# AttnScope — the architecture's rules that grep can check, so they stay true. GPL-3.0-or-later.
#   1. Only app/model starts threads: no QtConcurrent::run, std::thread, std::async, QThread or
#      QThreadPool elsewhere under app/.
#   2. No include cycle between the folders of app/ (main_window & co. count as the folder ".").
#   3. core/ knows nothing of Qt.
#   4. No tracked text file is over 400 lines (LICENSE, the GPL's own text, excepted); outside a
#      git checkout every file but the build trees is checked (tests/architecture/repo_files.sh).
#   5. No two .cpp files of a unity-built library (app, core) define the same file-local name
#      (tests/architecture/unity_names.py): which files share a unity batch shifts as files come.
#   6. app/ asks a scene what it is (spec.source(), is_synthetic/is_loaded/is_model) and switches
#      sources with the setters: no null test of a `data` or `model` member (`if (spec.data)`,
#      `!s.model`, `spec.model ? …`, `bool(x.data)`, `… && spec.data`), no `.data = ` or
#      `.model.reset()` on a spec.
#   7. A model family's headers (core/include/attn/models/<family>/) are included only by the
#      family itself (core/src/models/<family>/, core/include/attn/models/<family>/), the registry
#      core/src/models/families.cpp and tests/; a family never includes the scene.
#   8. A result says how it is stored in one enum (SceneResult::storage) and whether it has scores
#      (has_scores): the old flags weights_only, stages_kept and streamed are read nowhere.
#   9. No view loops over the layers: every layer is computed once, by app/model/layer_cache, and
#      app/views, app/lenses and app/widgets read it (no for_each_layer, census or rollout of a
#      spec there), and "recompute while visible" is app/model/while_visible (no showEvent that
#      starts a scheduler job in app/views).
#  10. Sessions are keyed by constants (model/view_state.hpp's view_keys), never by what a
#      translation changes: app/io/session* reads no tab title, window title, translated or shown
#      text (tabText(, windowTitle, tr(, translate(, currentText(, controlKey(), and every lens
#      control is added with a constant key before its label (no addSpin(tr(…) and the like).
#  11. Nothing computes on the GUI thread in app/views: no QtConcurrent::blockingMap or other
#      QtConcurrent::blocking* call, which makes the GUI thread wait for workers (views paint what
#      a scheduler job delivered, e.g. the heatmap cells of app/model/heatmap_model).
#  12. Core is built in rooms, lowest first: util, files, simd, attention, tokenizers, weights,
#      models (a family's folder models/<family>/ just above), interventions, scene, analysis,
#      lenses, playground, generate, io; a file includes only its own room and rooms below it,
#      and every core file is in a room (tests/architecture/core_layers.py).
#  13. Core keeps no process-wide mutable state: no mutex, mutable static or thread_local, or
#      namespace-scope variable in core/ unless tests/architecture/core_state_allowed.txt names
#      it with its reason (tests/architecture/core_state.py). Caches of results (model runs,
#      scenes) belong to the application, owned by one object (app/model/run_cache).
#  14. Every scene is computed by app/model (ComputeService, LayerCache and its RunCache, inside
#      scheduler jobs): app/views, app/lenses and app/widgets call no compute_scene,
#      recompute_scene, model_scene, run_scene, scene_run, compute_run or model::run; a reader
#      takes the scene through LayerCache::sceneFor and a model's run through
#      LayerCache::runs().
# Usage: check_architecture.sh [repository root]; prints every violation, exits 1 on any.
# The scripts run under Debian's /usr/bin/python3 (what set-up installs): a `python3` found on
# PATH may be a version manager's shim that costs most of a second per start, and
# planted_violations_test.sh runs this script 36 times.
set -u
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root" || exit 2
status=0
fail() {
  echo "FAIL: $*"
  status=1
}

# 1. Threads belong to the scheduler.
threads=$(grep -rnP 'QtConcurrent::run|std::thread\b(?!::id)|std::async|\bQThread\b|QThreadPool|QtConcurrentRun' \
  --include='*.cpp' --include='*.hpp' app | grep -v '^app/model/')
[ -n "$threads" ] && fail "threads started outside app/model:"$'\n'"$threads"

# 2. Folder include graph of app/, checked for cycles with tsort.
edges=$(cd app && for f in $(find . -name '*.cpp' -o -name '*.hpp'); do
  from=$(dirname "${f#./}")
  grep -hoP '^#include "\K[a-z_]+(?=/)' "$f" | while read -r to; do
    [ -d "$to" ] && [ "$to" != "$from" ] && echo "$from $to"
  done
done | sort -u)
if ! cycle=$(echo "$edges" | tsort 2>&1 >/dev/null) || [ -n "$cycle" ]; then
  fail "include cycle between app folders:"$'\n'"$cycle"$'\n'"edges:"$'\n'"$edges"
fi

# 3. core stays Qt-free.
qt=$(grep -rnE '#include <Q|#include <qt' core | head)
[ -n "$qt" ] && fail "Qt in core:"$'\n'"$qt"

# 4. Small files: git's list of files, or outside a checkout every file but the build trees.
if ! files=$(bash "$root/tests/architecture/repo_files.sh" "$root" | tr '\0' '\n'); then
  fail "cannot list the repository's files for the 400-line rule"
elif [ -z "$files" ]; then
  fail "no file listed under $root for the 400-line rule"
else
  big=$(echo "$files" | grep -vE '^LICENSE$|^wip/|\.(png|jpg|svg|npy|npz|zip|gz|pdf|ico)$|^tests/data/' |
    tr '\n' '\0' | xargs -0 -r wc -l | awk '$2 != "total" && $1 > 400 {print $2 ": " $1 " lines"}')
  [ -n "$big" ] && fail "files over 400 lines:"$'\n'"$big"
fi

# 5. Unity batches cannot collide.
clashes=$(/usr/bin/python3 "$root/tests/architecture/unity_names.py" "$root") || fail "file-local names that collide in a unity build:"$'\n'"$clashes"

# 6. Mode checks through the accessors. A member named data or model tested for null: negated or
# cast to bool, an if's whole condition, an operand of && or ||, the condition of ?:, or compared
# with nullptr; and a spec's source assigned or reset by hand. (`request.model.isEmpty()`,
# `spec.data->components`, `spec.is_model()`, a folder's own `spec.model->model` and the setters
# do not match.)
member='[A-Za-z_]\w*(\(\))?((\.|->)[A-Za-z_]\w*(\(\))?)*(?<!model|data)(\.|->)(data|model)\b(?!\s*(\(|->|\.|\[|=[^=]))'
modes=$(grep -rnP --include='*.cpp' --include='*.hpp' \
  "(!|\bbool\()\s*$member|\bif \(\s*$member\s*\)|(&&|\|\|)\s*$member|$member\s*(&&|\|\||\?(?!\?)|[!=]=\s*nullptr)|\b\w*[sS]pec\w*(\(\))?\.(data|model)(\s*=[^=]|\.reset\(\))" \
  app 2>/dev/null)
[ -n "$modes" ] && fail "a scene's kind read from null pointers (use source()/is_loaded()/is_model(), set_loaded/set_model/set_synthetic):"$'\n'"$modes"

# 7. Families plug in behind attn::model: only they, their registry and tests see their headers.
families=$(cd core/include/attn/models 2>/dev/null && for d in */; do [ -d "$d" ] && echo "${d%/}"; done)
if [ -n "$families" ]; then
  alt=$(echo "$families" | paste -sd'|')
  own=$(echo "$families" | sed 's|.*|^core/src/models/&/\|^core/include/attn/models/&/|' | paste -sd'|')
  leaks=$(grep -rnE --include='*.cpp' --include='*.hpp' "#include [<\"]attn/models/($alt)/" app core python 2>/dev/null |
    grep -vE "$own|^core/src/models/families\.cpp:")
  [ -n "$leaks" ] && fail "a model family's header included outside the family and its registry:"$'\n'"$leaks"
  scene=$(for f in $families; do
    grep -rnE '#include "attn/scene/' "core/src/models/$f" "core/include/attn/models/$f" 2>/dev/null
  done)
  [ -n "$scene" ] && fail "a model family includes the scene (families know only attn::model):"$'\n'"$scene"
fi

# 8. One storage enum: the flags it replaced are gone (HeadResult::streamed() is a head's own).
flags=$(grep -rnP --include='*.cpp' --include='*.hpp' '(\.|->)(weights_only|stages_kept|streamed)\b(?!\s*\()' \
  app core tests 2>/dev/null)
[ -n "$flags" ] && fail "a result's storage read from the old flags (use storage == Storage::… or has_scores):"$'\n'"$flags"

# 9. Layers are computed once, in app/model/layer_cache.
loops=$(grep -rnE 'for_each_layer|attn::census\(|attn::rollout\((spec|scene)' \
  --include='*.cpp' --include='*.hpp' app/views app/lenses app/widgets)
[ -n "$loops" ] && fail "views computing every layer themselves (read LayerCache):"$'\n'"$loops"
visible=$(grep -lE 'showEvent\(' app/views/*.cpp | xargs -r grep -lE 'Scheduler::instance\(\)\.(run|submit)')
[ -n "$visible" ] && fail "views starting jobs from showEvent (use WhileVisible):"$'\n'"$visible"

# 10. Sessions keyed by constants.
keys=$(grep -nE '\btabText\(|windowTitle|\btr\(|translate\(|currentText\(|controlKey\(' \
  app/io/session*.cpp app/io/session*.hpp 2>/dev/null)
labels=$(grep -rnE 'add(Spin|Slider|DoubleSpin|Combo|Check)\(\s*(tr\(|QObject::tr\(|QString)' \
  --include='*.cpp' app/lenses 2>/dev/null)
[ -n "$keys$labels" ] && fail "session keys from translated or shown text (use view_keys constants; lens controls take a constant key):"$'\n'"$keys$labels"

# 11. Views wait for no workers.
blocking=$(grep -rnE 'blockingMap|QtConcurrent::blocking|QtConcurrentMap' \
  --include='*.cpp' --include='*.hpp' app/views)
[ -n "$blocking" ] && fail "views waiting for workers on the GUI thread (run a scheduler job and paint what it delivers):"$'\n'"$blocking"

# 12. Core's rooms include only downwards.
upward=$(/usr/bin/python3 "$root/tests/architecture/core_layers.py" "$root") ||
  fail "core files including a room above their own, or outside every room:"$'\n'"$upward"

# 13. No process-wide cache in core.
state=$(/usr/bin/python3 "$root/tests/architecture/core_state.py" "$root") ||
  fail "process-wide mutable state in core (the application keeps caches):"$'\n'"$state"

# 14. Scenes are computed through app/model's cache, in scheduler jobs.
scenes=$(grep -rnE '\b(compute_scene|recompute_scene|model_scene|run_scene|scene_run|compute_run)\(|\bmodel::run\(' \
  --include='*.cpp' --include='*.hpp' app/views app/lenses app/widgets 2>/dev/null)
[ -n "$scenes" ] && fail "views, lenses or widgets computing a scene themselves (LayerCache::sceneFor, LayerCache::runs()):"$'\n'"$scenes"

[ $status -eq 0 ] && echo "architecture: threads only in app/model, no folder cycle, Qt-free core, no file over 400 lines, no unity-batch clash, scene kinds through accessors, family headers kept to families, one storage enum, layers computed once, sessions keyed by constants, no view waiting for workers, core rooms include only downwards, no process-wide state in core, scenes computed through app/model's cache"
exit $status
