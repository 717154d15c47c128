// AttnScope — `attnscope census`. GPL-3.0-or-later.
#include "cli/census_command.hpp"

#include <QCoreApplication>
#include <QFile>
#include <new>

#include "attn/analysis/census.hpp"
#include "attn/io/output/census_writer.hpp"
#include "attn/util/error.hpp"
#include "cli/exit_codes.hpp"
#include "cli/intervention_output.hpp"
#include "cli/output_check.hpp"
#include "cli/scene_input.hpp"
#include "model/error_text.hpp"

namespace cli {

int runCensus(const Request& request, QString* error) {
    SceneInput input;
    if (const int code = prepareScene(request, &input, error); code != kExitOk) return code;
    if (const int code = checkOutputFile(request, input, error); code != kExitOk) return code;
    attn::Census census;
    try {
        census = request.induction ? inductionCensus(input.spec) : attn::census(input.spec);
    } catch (const std::bad_alloc&) {
        *error = QCoreApplication::translate("cli", "not enough memory for the census");
        return kExitInput;
    } catch (const attn::ArgumentError& e) {
        *error = errorText(e, inputName(request));
        return input.blame.isEmpty() ? kExitUsage : kExitInput;  // a session's own scene
    } catch (const std::exception& e) {
        *error = errorText(e, inputName(request));
        return kExitInput;
    }
    try {
        attn::io::write_census(QFile::encodeName(request.output).toStdString(), census);
    } catch (const std::exception& e) {
        *error = errorText(e, request.output);
        return kExitOutput;
    }
    return kExitOk;
}

}  // namespace cli
