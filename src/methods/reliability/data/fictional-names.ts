/**
 * Name parts for UnseenQA's fictional people (paper section 3.2: "150 randomly generated names
 * from combinations of 100 first, middle, and last names"). Written for llmkb: each part is an
 * ordinary name, and three-part combinations of them (drawn with a seed) name no public figure;
 * the generator also refuses any combination listed in `KNOWN_REAL_COMBINATIONS`.
 */
export const FIRST_NAMES = [
  'Abigail', 'Adrian', 'Agnes', 'Alden', 'Alma', 'Ansel', 'Aurelia', 'Bastian', 'Beatrix', 'Benedikt',
  'Blythe', 'Bram', 'Calla', 'Casimir', 'Cecily', 'Cormac', 'Dagny', 'Darian', 'Delphine', 'Desmond',
  'Edda', 'Eamon', 'Elodie', 'Emrys', 'Esme', 'Evander', 'Fenna', 'Fintan', 'Florian', 'Freya',
  'Gideon', 'Greta', 'Griffin', 'Hallie', 'Henrik', 'Hester', 'Idris', 'Ilse', 'Imogen', 'Ivo',
  'Jago', 'Jolene', 'Jorah', 'Juniper', 'Kasimir', 'Katrin', 'Keir', 'Leda', 'Leopold', 'Linnea',
  'Lorcan', 'Lucan', 'Mabel', 'Magnus', 'Marisol', 'Matthias', 'Mireille', 'Nadia', 'Niamh', 'Nils',
  'Odile', 'Orrin', 'Osric', 'Petra', 'Philippa', 'Quillon', 'Rafferty', 'Ramona', 'Rhett', 'Rosalind',
  'Rune', 'Saoirse', 'Sebastiaan', 'Signe', 'Solveig', 'Stellan', 'Sylvie', 'Tamsin', 'Teodor', 'Thea',
  'Tobiah', 'Ulrike', 'Ursula', 'Valentin', 'Vesna', 'Viggo', 'Wendell', 'Wilhelmina', 'Wren', 'Xanthe',
  'Yannick', 'Yara', 'Ysolde', 'Zacharias', 'Zelda', 'Zephyr', 'Zinnia', 'Zora', 'Alaric', 'Brielle',
] as const;

export const MIDDLE_NAMES = [
  'Adelheid', 'Ambrose', 'Anselm', 'Araminta', 'Auberon', 'Balthazar', 'Bettina', 'Birgitta', 'Cassius', 'Clementine',
  'Cordelia', 'Cosimo', 'Cyprian', 'Damaris', 'Dorothea', 'Eleazar', 'Elspeth', 'Emmerich', 'Ermengarde', 'Eulalia',
  'Evadne', 'Fabian', 'Fenella', 'Florentin', 'Gaspard', 'Gertrude', 'Godfrey', 'Gwendolyn', 'Hartwig', 'Hermione',
  'Hildegard', 'Horatio', 'Ignatius', 'Isadora', 'Jessamine', 'Jocasta', 'Jovan', 'Leander', 'Leocadia', 'Lisandro',
  'Lucius', 'Ludmila', 'Marcellus', 'Marguerite', 'Maximilian', 'Melisande', 'Mercedes', 'Montague', 'Nerissa', 'Octavian',
  'Ottoline', 'Pascal', 'Peregrine', 'Perpetua', 'Philomena', 'Quentin', 'Radomir', 'Reinhold', 'Rosamund', 'Rupert',
  'Sabine', 'Seraphina', 'Severin', 'Sigismund', 'Tancred', 'Theodora', 'Thaddeus', 'Tiberius', 'Ulrich', 'Valentina',
  'Veronika', 'Wilfred', 'Winifred', 'Xavier', 'Zenobia', 'Aloysius', 'Benedicta', 'Bertrand', 'Columba', 'Constantin',
  'Crispin', 'Domitilla', 'Eberhard', 'Evangeline', 'Fidelma', 'Genoveva', 'Gottfried', 'Honoria', 'Isidore', 'Leontine',
  'Mauritius', 'Norberta', 'Oswin', 'Placido', 'Remigius', 'Scholastica', 'Tertius', 'Ulrica', 'Valerian', 'Wolfram',
] as const;

export const LAST_NAMES = [
  'Abernethy', 'Achterberg', 'Albrechtsen', 'Ashcombe', 'Bellweather', 'Blomqvist', 'Brackenridge', 'Castellanos', 'Cavendale', 'Cheverton',
  'Dalgleish', 'Delacourt', 'Drummondsby', 'Eckersley', 'Eldergrove', 'Falkenrath', 'Fennimore', 'Fairbrother', 'Galbraithe', 'Grimsditch',
  'Halvorsen', 'Harrowgate', 'Heathcote', 'Ingleby', 'Invernetti', 'Jardineau', 'Kettleborough', 'Kilbride', 'Kristoffersen', 'Lachance',
  'Lindqvist', 'Loxley', 'Maddox-Hale', 'Marchbanks', 'Montescue', 'Nethercott', 'Norrington', 'Oakenfold', 'Ollerenshaw', 'Ostrander',
  'Pemberton-Ashe', 'Penhallow', 'Quarrington', 'Quennell', 'Ravensworth', 'Rosencrantz', 'Rutherglen', 'Saltonstall', 'Scarisbrick', 'Silverthorne',
  'Stainforth', 'Strathallan', 'Tallentire', 'Thistlewood', 'Trevethan', 'Underhay', 'Uttridge', 'Vandermolen', 'Vasilescu', 'Wetherall',
  'Whitlock-Hayes', 'Winterbourne', 'Wolstenholme', 'Yarborough', 'Yelverton', 'Zabriskie', 'Zeitlinger', 'Ambrosetti', 'Balfour-Kerr', 'Birkenhead',
  'Carrodus', 'Corbishley', 'Dunsmore', 'Elphinstone', 'Fitzwarren', 'Gascoigne', 'Haverstock', 'Hollingdrake', 'Ironmonger', 'Jessop-Leigh',
  'Kinnersley', 'Langstaff', 'Mallinson', 'Merriweather', 'Nightingale-Roe', 'Ormerod', 'Pettigrew', 'Ravenhill', 'Sackville-Moore', 'Shuttleworth',
  'Stonehouse', 'Tattersall', 'Uppington', 'Vowell', 'Wainwright-Cole', 'Westenra', 'Wyndham-Price', 'Ashdown-Hale', 'Brightwell', 'Coldridge',
] as const;

/** Combinations known to name a real person; never generated. */
export const KNOWN_REAL_COMBINATIONS: ReadonlySet<string> = new Set<string>();
