// AttnScope — how a generation of the Model dock's Generate section ended, in words.
// GPL-3.0-or-later.
#include "io/generate_panel.hpp"

#include "attn/models/model.hpp"

namespace fileio {

QString GeneratePanel::endNote() const {
    const int made = int(shown_.choices.size());
    switch (end_) {
        case End::Running:
            return {};
        case End::Done:
            // Fewer tokens than asked: why the generation ended there.
            if (reason_ == attn::gen::StopReason::Positions && model_)
                return tr("%n token(s) generated: the text fills the model's %1 positions", "",
                          made)
                    .arg(model_->model->info().max_positions);
            if (reason_ == attn::gen::StopReason::Eos)
                return tr(
                    "%n token(s) generated: the model ended the text (its end-of-text "
                    "token)",
                    "", made);
            if (reason_ == attn::gen::StopReason::StopId)
                return tr("%n token(s) generated: a stop token came", "", made);
            return tr("%n token(s) generated", "", made);
        case End::Stopped:
            return tr("Stopped: generation cancelled after %n token(s)", "", made);
        case End::Failed:
            return error_;
    }
    return {};
}

}  // namespace fileio
