// llmkb view: the little that needs a script. Pages work without it (forms are plain GET forms).
'use strict';
document.addEventListener('DOMContentLoaded', () => {
  // Runs list: "Compare selected" is enabled once two or more runs are ticked.
  const form = document.getElementById('compare-form');
  if (form) {
    const button = document.getElementById('compare-button');
    const hint = document.getElementById('compare-hint');
    const update = () => {
      const n = form.querySelectorAll('input[name="run"]:checked').length;
      button.disabled = n < 2;
      hint.textContent = n < 2 ? 'select 2 or more' : `${n} runs selected`;
    };
    form.addEventListener('change', update);
    update();
  }
  // Item filters: a changed select applies at once; empty fields are left out of the address.
  const filters = document.getElementById('filters');
  if (filters) {
    filters.addEventListener('change', (e) => {
      if (e.target instanceof HTMLSelectElement) filters.requestSubmit();
    });
    filters.addEventListener('formdata', (e) => {
      for (const [k, v] of [...e.formData.entries()]) if (v === '') e.formData.delete(k);
    });
  }
});
