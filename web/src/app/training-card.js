// The training card's LoRA/QLoRA inputs and the memory bar, after each estimate. The fine-tuning
// method is part of the estimate request (training_analysis: fine_tuning, lora_rank, ...), so the
// estimate's headline (badge, memory bar, hero step time) is the core's figure for that method; the
// card adds fc.train() of the same request (app/lora.js, loaded on first use) for the adapters'
// breakdown. Names and defaults come from the request table (its training_analysis part); an empty
// rank is the core's default rank (shown as the input's placeholder once the core has applied it).
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

  function showFull() {
    $('lora-kv').hidden = true;
    $('train-kv').hidden = false;
  }
  const say = (text, e) => showError(message, text, e);

  return {
    url: { ft: 'lora-mode', lora: 'lora-rank', 'lora-targets': 'lora-targets', 'lora-base': 'lora-base' },
    /** Adds the fine-tuning method to a training request `req` (errors: input id -> message). */
    apply(req, errors) {
      const mode = $('lora-mode').value;
      if (!req.training || !mode) return;
      const part = { fine_tuning: mode };
      const rankText = $('lora-rank').value.trim();
      if (rankText !== '') {
        const rank = Number(rankText);
        if (!Number.isFinite(rank)) errors.set('lora-rank', `LoRA rank: not a number: "${rankText}".`);
        else part.lora_rank = rank; // the core judges the rest (a whole number, its range)
      }
      const targets = $('lora-targets').value.trim();
      if (targets) part.lora_targets = targets;
      if ($('lora-base').value) part.base_precision = $('lora-base').value;
      req.training_analysis = part;
    },
    /** After an estimate of `req`: the LoRA card when asked for, and the memory bar (the estimate's). */
    update(result, req) {
      const mode = $('lora-mode').value;
      for (const el of document.querySelectorAll('.lora-only')) el.hidden = !mode;
      for (const row of $('train-kv').querySelectorAll('.hide-zero'))
        row.hidden = row.querySelector('dd').dataset.value === '0';
      const training = result.details.memory.training;
      const my = ++seq;
      drawMemoryBar($('membar'), result);
      if (!training || !mode || training.fine_tuning === 'full') {
        say('');
        card.dataset.lora = '';
        return showFull();
      }
      // The rank the core applied (its default when the input is empty).
      $('lora-rank').placeholder = `${training.lora_rank} (default)`;
      card.dataset.lora = 'loading';
      lora ??= import('./lora.js');
      lora.then((m) => {
        if (my !== seq) return;
        const out = m.runLora(fc, D, req);
        card.dataset.request = JSON.stringify(m.trainRequest(D, req));
        if (out.error) {
          say(plainMessage(out.error), out.error);
          card.dataset.lora = 'error';
          return showFull();
        }
        say('');
        m.renderLora($('lora-kv'), out.result);
        $('lora-kv').hidden = false;
        $('train-kv').hidden = true;
        card.dataset.lora = '1';
        onLora?.(out.result);
      });
    },
  };
}
