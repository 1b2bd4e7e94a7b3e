// The training card's LoRA/QLoRA inputs and the memory bar, after each estimate. Full fine-tuning
// is the estimate's own training path; with LoRA or QLoRA the card and the bar show fc.train() of
// the same request (app/lora.js, loaded on first use). Names and defaults come from the request
// table (its training_analysis part).
import { drawMemoryBar } from './membar.js';
import { plainMessage, showError } from './fmt.js';

export function initTrainingCard({ fc, $, D, onLora }) {
  const field = (key) => D.request_fields.find((f) => f.part === 'training_analysis' && f.key === key);
  const targets = field('lora_targets');
  $('lora-targets').placeholder = String(targets?.default ?? '');
  $('lora-hint').textContent = [field('lora_rank'), field('qlora'), targets, field('base_precision')]
    .filter(Boolean)
    .map((f) => f.help)
    .join('. ');
  let lora = null;
  let seq = 0;
  const card = $('training-card');
  const message = $('lora-message');

  function showFull(result) {
    $('lora-kv').hidden = true;
    $('train-kv').hidden = false;
    drawMemoryBar($('membar'), result);
  }
  const say = (text, e) => showError(message, text, e);

  return {
    url: { ft: 'lora-mode', lora: 'lora-rank', 'lora-targets': 'lora-targets', 'lora-base': 'lora-base' },
    /** After an estimate of `req`: the LoRA figures when asked for, and the memory bar. */
    update(result, req) {
      const mode = $('lora-mode').value;
      for (const el of document.querySelectorAll('.lora-only')) el.hidden = !mode;
      for (const row of $('train-kv').querySelectorAll('.hide-zero'))
        row.hidden = row.querySelector('dd').dataset.value === '0';
      const training = result.details.memory.training !== null;
      const my = ++seq;
      if (!training || !mode) {
        say('');
        card.dataset.lora = '';
        return showFull(result);
      }
      const rankText = $('lora-rank').value.trim();
      const rank = rankText === '' ? undefined : Number(rankText);
      if (rankText === '' ? mode === 'lora' : !Number.isInteger(rank)) {
        say(
          rankText === ''
            ? 'LoRA rank: enter a rank (a whole number, e.g. 16).'
            : `LoRA rank: not a whole number: "${rankText}".`,
        );
        card.dataset.lora = 'error';
        return showFull(result);
      }
      const inputs = {
        rank,
        targets: $('lora-targets').value.trim(),
        qlora: mode === 'qlora',
        base: $('lora-base').value,
      };
      card.dataset.lora = 'loading';
      lora ??= import('./lora.js');
      lora.then((m) => {
        if (my !== seq) return;
        const out = m.runLora(fc, D, req, inputs);
        card.dataset.request = JSON.stringify(m.trainRequest(D, req, inputs));
        if (out.error) {
          say(plainMessage(out.error), out.error);
          card.dataset.lora = 'error';
          return showFull(result);
        }
        say('');
        m.renderLora($('lora-kv'), out.result);
        $('lora-kv').hidden = false;
        $('train-kv').hidden = true;
        drawMemoryBar($('membar'), result, out.result);
        card.dataset.lora = '1';
        onLora?.(out.result);
      });
    },
  };
}
