/**
 * Gazetteer of Moroccan cities and their districts, as listings and portals write them.
 *
 * Sources: the district tables of docs/analysis-text.md ([DS-EARTHY], [DS-ALTIMIS],
 * [DS-MUBRENT], Mubawab barometers), the city/sector vocabulary of the portals
 * (docs/portals.md: Avito sectors, Mubawab "<district> à <city>" locations), and the common
 * French, Arabic and Darija spellings of each name. Matching is accent-, case- and
 * doubled-letter-tolerant through `nameKey` (Maârif = Maarif, Guéliz = Gueliz, Assilah = Asilah).
 *
 * Spelling entries: "Canonical|alias|alias…", or "Canonical>Parent|…" for a part of a wider district
 * (portals file listings at different granularity: Avito's "Maarif" sector covers Les Princesses and
 * Maârif Extension). An alias may carry a flag:
 * - `=alias`  only for looking up a portal's field, never searched in free text ("Centre", "Plage");
 * - `?alias`  a common word that is a place only after a place word ("à l'Oasis", "quartier Palmier",
 *             "à Salé") or at the start of a line; "une oasis de calme" is not the district.
 */
import { nameKey } from './normalize.js';

interface CitySpec {
  /** "Canonical|alias…" for the city. */
  names: string;
  districts: string[];
}

const CITIES: CitySpec[] = [
  {
    names: 'Casablanca|casa|casablanka|kaza|dar el beida|dar el baida|dar lbida|الدار البيضاء|الدارالبيضاء|كازا|كازابلانكا|casa blanca',
    districts: [
      'Maârif|el maarif|al maarif|المعاريف|=maarif centre',
      'Maârif Extension>Maârif|maarif ext|maarif extention|maarif extension|extension maarif',
      'Gauthier|gautier|غوتيي',
      'Racine|راسين',
      'Racine Extension>Racine|racine ext',
      'Bourgogne|bourgone|بورغون',
      'Bourgogne Est>Bourgogne',
      'Bourgogne Ouest>Bourgogne',
      '?Palmier|?palmiers|quartier palmier|quartier des palmiers|النخيل',
      'Les Princesses>Maârif|princesses|quartier des princesses|quartier les princesses|les princesse',
      '?Oasis|quartier oasis|الواحه',
      'Oasis Sud>Oasis',
      'Californie|california|porte de californie|porte californie|كاليفورنيا',
      'CIL|cil hay salam|=cil (hay salam)|hay salam cil',
      'Aïn Diab|ain diab|ain dyab|عين الذياب|ain diab corniche',
      'Aïn Diab Extension>Aïn Diab|ain diab ext',
      'Anfa|انفا|casa anfa',
      'Anfa Supérieur>Anfa|anfa sup|anfa superieure|anfa haut',
      "Triangle d'Or|triangle dor|triangle d'or",
      'Quartier des Hôpitaux|hopitaux|les hopitaux|quartier hopitaux|quartier des hopiteaux',
      '2 Mars|deux mars|2 mars|شارع 2 مارس|bd 2 mars|boulevard 2 mars|boulevard du 2 mars',
      'Beauséjour|beau sejour|بوسيجور',
      'Belvédère|belveder|belvedere|بلفدير',
      'Mers Sultan|mers soltane|مرس السلطان',
      'Derb Ghallef|derb ghalef|derb ghellef|درب غلف',
      'Derb Omar|درب عمر',
      'Derb Sultan|درب السلطان',
      'Val Fleuri|val fleury|valfleuri|val fleurie',
      'Ferme Bretonne|ferme breton|la ferme bretonne|hay arraha|=ferme bretonne (hay arraha)|حي الراحه',
      'Longchamps|longchamp|hay al hanaa|=longchamps (hay al hanâa)',
      'Lusitania',
      'Riviera|la riviera',
      'La Gironde|gironde',
      'Roches Noires|roche noire|roches noirs|roches noire|الصخور السوداء',
      'Aïn Sebaâ|ain sebaa|ain sbaa|ainsebaa|ainsbaa|ain seba|ain sbaâ|ain sebâa|عين السبع|ainsi sebaa',
      'Aïn Chock|ain chok|ain chouk|ain chock|عين الشق',
      'Aïn Borja|ain borja|عين البرجه',
      'Sidi Maârouf|sidi maarouf|sidi marouf|sidimaarouf|sidi maarouf|sidi mâarouf|سيدي معروف|casanearshore|casa nearshore|casa nearshor|nearshore|sidi marouf',
      'Sidi Bernoussi|bernoussi|sidi bernousi|البرنوصي|سيدي البرنوصي|bernousi',
      'Sidi Moumen|sidimoumen|sidi moumene|sidi momen|sidimoumene|سيدي مومن',
      'Sidi Othmane|sidi othman|سيدي عثمان',
      'Hay Hassani|hay el hassani|hay hasani|الحي الحسني',
      'Hay Mohammadi|hay mohammedi|hay mohamadi|الحي المحمدي',
      'Oulfa|al oulfa|el oulfa|الالفه|hay oulfa',
      'Lissasfa|lissafa|ليساسفه',
      'Nassim>Sidi Maârouf|ennassim|hay nassim|al nassim|annassim',
      'Errahma|rahma|الرحمه|hay errahma',
      'Abdelmoumen|abdelmoumene|عبد المومن|bd abdelmoumen|boulevard abdelmoumen',
      'Mandarouna|mandaronna',
      'Bachkou|bachkou',
      'Lekrimat|lkrimat',
      '?Liberté|quartier liberte',
      'Casablanca Finance City|cfc|casa finance city|casablanca finance|quartier financier|finance city',
      'Franceville',
      'Tantonville',
      'Beausite>Aïn Sebaâ|beau site',
      'El Manar - El Hank|el hank|el manar|al manar|=el manar el hank',
      'Hay Arsalan|arsalan',
      'Al Qods|hay al qods|el qods|hay el qods|القدس',
      'Hay Al Baraka|albaraka|hay albaraka|al baraka',
      "Ben M'sick|ben msik|ben msick|benmsik|بن امسيك|ben m'sik",
      'Sbata|سباته',
      'Al Fida|el fida|الفداء',
      'Moulay Rachid|hay moulay rachid|مولاي رشيد',
      "Route d'Azemmour|route d azemmour|route azemmour|route d azzemour|route dazemmour",
      "Route d'El Jadida|route d el jadida|route el jadida|route de jadida",
      'Alsace Lorraine',
      '?Polo',
      'Habous|quartier habous|الحبوس',
      '?Hermitage',
      'Sidi Belyout|sidi belyoute|سيدي بليوط',
      'Hay Inara|inara',
      'Hay Adil>Hay Mohammadi',
      'Hay Farah|al farah|حي الفرح',
      'Sidi El Khadir',
      'Oulad Ziane|ouled ziane',
      'La Colline|quartier la colline',
      '?Marina|casablanca marina|casa marina',
      'Ghandi|boulevard ghandi|bd ghandi|bld ghandi',
      'Nouaceur|النواصر',
      'Al Azhar|hay al azhar|الازهر',
      '=Zone Industrielle',
      'Hay Moulay Abdellah',
      'Bournazel',
      'Attacharouk|tacharouk|التشارك',
      'Hay Chrifa',
      'Al Madina Al Jadida|=al madina aljadida',
      'Essalama|hay salama',
      'Dar Lamane|darlamane',
      '=Plateau|=le plateau',
      'Mâarif Burger>Maârif|maarif burger',
      'Laimoune|laymoun',
      'Lahraouiyine|lahraouine|الهراويين',
      'Les Crêtes|cretes',
      'Hay Chifa|chifa',
      'Quartier Industriel',
      'Salmia|hay salmia|salmia 1|salmia 2|السالميه',
      'Anassi|hay anassi|الاناسي',
      'Oulad Taleb|ouled taleb',
      'Sidi Abderrahmane|sidi abderrahman|سيدي عبد الرحمان',
      "Val d'Anfa|val d anfa|val danfa",
      'Lalla Meriem|lalla meriem|hay lalla meriem',
      'Ahl Loghlam|ahl loughlam|ahl laghlam|اهل الغلام',
      'Hay Sadri|sadri|essadri|hay essadri',
      '?Jamila|cite jamila|hay jamila',
      'Hay Raja|hay raja fi allah|raja fi allah',
    ],
  },
  {
    names: 'Rabat|الرباط|rbat',
    districts: [
      'Agdal|اكدال|agdal rabat',
      'Haut Agdal>Agdal|agdal haut',
      'Hay Riad|hay ryad|hay riyad|mahaj riad|mahaj ryad|=riyad|=riad|حي الرياض',
      'Souissi|سويسي|souissi 1|souissi 2',
      '?Hassan|quartier hassan|=hassan - centre ville|حسان',
      "L'Océan|quartier de l ocean|quartier ocean|=ocean|=l ocean|المحيط",
      'Les Orangers|orangers',
      'Diour Jamaâ|diour jamaa|diour jemaa|ديور الجامع',
      'Akkari|akari|العكاري',
      'Yacoub El Mansour|yacoub el mansour|yacoub mansour|يعقوب المنصور',
      'Takaddoum|التقدم',
      'Youssoufia|اليوسفيه',
      'Aviation|quartier de l aviation|=l aviation',
      'Hay Nahda|nahda|النهضه',
      'Hay El Fath|el fath|hay al fath|حي الفتح',
      'Kamra',
      'Ambassadeurs|quartier des ambassadeurs',
      'Mabella',
      'Guich Oudaya|guich loudaya|guich',
      'Hay Al Menzah|al menzah|المنزه|el menzah',
      'Irfane|al irfane|madinat al irfane|hay al irfane|العرفان',
      'Quartier des Ministères|ministeres',
      'Oudayas|les oudayas|kasbah des oudayas|الاوداية|الوداية',
      'Qbibat|quartier qbibat|لقبيبات',
    ],
  },
  {
    names: '?Salé|سلا|sla',
    districts: [
      'Tabriquet|tabriket|تابريكت',
      'Sala Al Jadida|sala jadida|sala el jadida|سلا الجديده',
      'Bettana|betana|بطانه',
      'Hay Karima|karima',
      'Saïd Hajji|said hajji',
      'Hay Chmaou|chmaou',
      'Hssaine|hssain|الحصين',
      'Bab Lamrissa|bab lamrisa',
      'Sidi Moussa',
      'Mkinssia|mkinsia',
      'Hay Salam|hay essalam|حي السلام',
      'Laayayda|layayda',
      'Oulja|al oulja|el oulja|الولجه',
      'Kariat Oulad Moussa|kariat oulad moussa|qariat oulad moussa|قريه اولاد موسي',
      'Hay Inbiaat|inbiaat|al inbiaat',
    ],
  },
  {
    names: 'Témara|temara|tmara|تماره',
    districts: [
      'Massira|al massira|massira 1|massira 2|massira 3|المسيره',
      'Wifak|al wifak|el wifak|الوفاق',
      'Harhoura|harhoura plage|هرهوره',
      'Riad Oulad Mtaa|ryad oulad mtaa|oulad mtaa|ouled mtaa|رياض اولاد مطاع',
      "Val d'Or|val dor",
      'Guich Oudaya|guich loudaya',
      'Hay Nahda|nahda',
      'Aïn Atiq|ain atiq|ain atik|عين عتيق',
      "Sables d'Or|sables d or|sable d or",
      'Hay Al Maghrib Al Arabi|maghrib arabi|al maghrib al arabi',
      'Mers El Kheir|mers el kheir|مرس الخير',
    ],
  },
  {
    names: 'Marrakech|marrakesh|marrakch|marakech|mrrakch|marrakesch|marrakeche|مراكش|mrakch',
    districts: [
      'Guéliz|gueliz|gueliz marrakech|كليز|جليز',
      'Hivernage|l hivernage|الحي الشتوي',
      'Palmeraie|la palmeraie|النخيل|palmeraie marrakech',
      'Agdal|agdal marrakech',
      'Targa|تاركه',
      'Massira|al massira|massira 1|massira 2|massira 3|المسيره',
      'Daoudiate|daoudiat|الداوديات',
      'Semlalia|samlalia|السملاليه',
      'Majorelle|jardin majorelle',
      'Amelkis|amelkis golf',
      "M'Hamid|mhamid|m hamid|امحاميد|المحاميد",
      'Izdihar|hay izdihar|al izdihar|الازدهار',
      'Route de Casablanca|route casablanca|route de casa',
      'Route de Fès|route de fes|route fes',
      "Route de l'Ourika|route ourika|route de ourika|route d ourika",
      "Route d'Amizmiz|route amizmiz|route d amizmiz",
      'Route de Safi|route safi',
      'Route de Tahanaout|route tahanaout',
      'Sidi Ghanem|sidi ghanem|سيدي غانم',
      'Azzouzia|azzouzia|العزوزيه|azouzia',
      'Mabrouka|al mabrouka',
      'Allal El Fassi|allal el fassi|allal fassi|علال الفاسي',
      'Hay Charaf|charaf',
      'Boulevard Mohammed VI|boulevard med 6|bd mohammed 6|avenue mohammed 6|=boulevard med 6',
      'Victor Hugo',
      'Kasbah',
      'Bab Doukkala|bab doukala|باب دكاله',
      'Menara|المناره',
      'Assif',
      'Sidi Youssef Ben Ali|syba|سيدي يوسف بن علي|sidi youssef',
      'Chrifia|chrifiya|الشريفيه',
      'Saâda|saada|hay saada',
      'Ennakhil|annakhil',
      'Tassoultante|tassoultant',
      'Ouahat Sidi Brahim',
      'Bab Atlas',
      'Azli',
      'Issil',
      'Sidi Abbad',
      'Route de Ouarzazate|route ouarzazate|route d ouarzazate',
      'Socoma',
      'Amerchich|amerchiche',
      'Camp El Ghoul|camp el ghoul|camp lghoul',
      'Al Massar|hay al massar',
    ],
  },
  {
    names: 'Tanger|tangier|tangiers|tanja|tanger city|طنجه|tangir',
    districts: [
      'Malabata|مالاباطا',
      'Ibéria|iberia|ايبيريا',
      'Marshan|marchan|مرشان',
      'Boubana|بوبانه',
      'Mesnana|msnana|مسنانه',
      'Moujahidine|al moujahidine|المجاهدين',
      'Ziatene|ziaten|زياتن',
      'Tanja Balia|tanja al balia|طنجه الباليه',
      'Beni Makada|bni makada|بني مكاده',
      'Mghogha|mghoghat|مغوغه',
      'Achakar|achaqar|اشقار',
      'Cap Spartel|spartel',
      'Val Fleuri|val fleury',
      'Californie|california',
      'Branes|branes 1|branes 2|البرانص',
      'Al Warda|el warda',
      'Ahlane|ahlan',
      'Mozart',
      'Star Hill|starhill',
      'Souani|السواني',
      'Dradeb|الدرادب',
      'Msallah|msala|مصلى',
      'Rmilat|الرميلات',
      'Castilla',
      'Quartier Administratif|administratif|=administratif',
      '=De La Plage|=plage|=la plage|quartier de la plage',
      'Route de Tétouan|route de tetouan|route tetouan',
      'Jbel Kbir|jbel kebir|الجبل الكبير',
      'Manar Park',
      'Hay Hassani|الحي الحسني',
      '?Marjane|quartier marjane',
      'Boukhalef|boukhalf|بوخالف',
      'Aouama',
      'Tanger City Center|tanger city centre|city center tanger',
      'Charf|charf mghogha|charf souani',
      'Bendibane|bendiban|بنديبان|بن ديبان',
      'Bir Chifa|bir chiffa',
      'Aïn Ktiouet|ain ktiouet',
      'Sidi Driss',
      'Dar Tounsi',
      '=Golf',
      'Nejma|najma|quartier nejma',
      'Casabarata|casa barata|kasabarata',
      'Aïn Hayani|ain hayani',
      'Ghandouri|ghandori',
      'Jirari|hay jirari',
      'Drissia|hay drissia',
    ],
  },
  {
    names: 'Agadir|اكادير|agadir city',
    districts: [
      'Founty|fonti|فونتي',
      'Haut Founty>Founty',
      'Hay Mohammadi|hay mohamadi',
      'Hay Salam|hay essalam|حي السلام',
      'El Houda|al houda|الهدى',
      'Talborjt|talborjt|تالبرجت',
      'Hay Dakhla|dakhla agadir|الداخله',
      'Ihchach|ihchach|احشاش',
      'Charaf|hay charaf',
      'Tilila|تيليلا',
      'Bensergao|bensergaou|بنسركاو',
      'Anza|انزا',
      '?Marina|marina agadir',
      'Sonaba|sonaba',
      'Cité Suisse|cite suisse|swiss city',
      'Les Amicales|amicales',
      'Amsernat|امسرنات',
      'Tikiouine|tikiwine|تكيوين',
      'Tassila|تاسيلا',
      'Illigh',
      'Adrar',
      'Hay Massira|massira agadir',
      'Secteur Touristique|baie d agadir',
      'Hay Lkhiam|lkhiam|el khiam|al khiam',
      'Tadart|taddart',
    ],
  },
  {
    names: 'Fès|fes|fez|فاس|?fas',
    districts: [
      'Agdal|agdal fes',
      "Route d'Immouzer|route d imouzzer|route immouzer|route d immouzer|triq imouzzer",
      'Route Aïn Chkef|route ain chkef|ain chkef|طريق عين الشقف',
      'Zouagha|zouagha|زواغه',
      'Narjiss|narjis|النرجس',
      'Saïs|sais|سايس',
      '?Atlas|quartier atlas',
      'Ville Nouvelle|ville nouvelle fes',
      'Bensouda|bensouda|بنسوده',
      'Montfleuri|mont fleuri',
      'Oued Fès|oued fes|واد فاس',
      'Route de Sefrou|route sefrou',
      'Route de Meknès|route de meknes',
      'Dokkarat|doukkarat|الدكارات',
      'Champ de Course',
      'Lido',
      'Aïn Kadous|ain kadous|عين قادوس',
      'Fès Jdid|fes jdid|fes el jdid|فاس الجديد',
      'Jnan El Ward|jnane lward|jnan lward|jnane el ward|جنان الورد',
      'Mérinides|merinides|marinides|hay merinides|المرينيين',
      'Aïn Haroun|ain haroun|عين هارون',
      'Bab Ftouh|باب الفتوح',
      'Zohour|hay zohour|zhor|hay zhor',
      'Aouinat Hajjaj|aouinate hajjaj|aouinat hajaj|عوينات الحجاج',
      'Adarissa|hay adarissa|al adarissa|الادارسه',
      'Dhar Mehraz|dhar el mehraz|ظهر المهراز',
      'Ben Debbab|bendebbab|بن دباب',
      'Aïn Amer|ain amer',
    ],
  },
  {
    names: 'Meknès|meknes|miknas|مكناس',
    districts: [
      'Hamria|hamriya|الحمريه',
      'Ville Nouvelle',
      '?Marjane|marjane meknes',
      'Plaisance',
      'Bassatine|al bassatine|البساتين',
      'Sidi Baba|سيدي بابا',
      'Zitoune|hay zitoune',
      'Toulal|تولال',
      'Sidi Bouzekri|سيدي بوزكري',
      'Borj Moulay Omar',
      'Riad Ismailia|ismailia',
      'Rouamzine|روامزين',
      'Aïn Slougui|ain slougui',
      "Route d'El Hajeb|route el hajeb|route d el hajeb",
      'Sidi Saïd|sidi said',
    ],
  },
  {
    names: 'Kénitra|kenitra|knitra|القنيطره',
    districts: [
      'Ville Haute|la ville haute',
      'Mimosas|mimosa|quartier mimosa|quartier mimosas',
      'Maâmora|maamora|المعموره',
      'Val Fleuri|val fleury',
      'El Haddada|haddada',
      'Bir Rami|bir rami est|bir rami ouest|بير الرامي',
      'Ouled Oujih|oulad oujih',
      'Khabazat|الخبازات',
      'La Cigogne|cigogne',
      'Saknia|الساكنيه',
      'Fouarat|fouwarat|الفوارات',
      'Nkhakhsa|nakhakhsa',
    ],
  },
  {
    names: 'Mohammedia|mohamedia|fedala|المحمديه|mhammedia',
    districts: [
      'Quartier du Parc|=le parc|=parc',
      'El Wafa|wafa|hay el wafa|حي الوفاء',
      'Monica',
      'Mannesmann|manesman',
      'La Colline|?colline',
      'Al Alia|el alia|العاليه',
      'Hay Rachidia|rachidia',
      'Sablettes|les sablettes',
      'Riad Salam|riad essalam|رياض السلام',
      'Hay Hassania|hassania',
      'Kasbah Mohammedia|=kasbah',
      'La Siesta|siesta',
      'Yasmina|hay yasmina',
    ],
  },
  {
    names: 'El Jadida|eljadida|al jadida|el-jadida|?الجديده|mazagan',
    districts: [
      'Hay Essalam|hay salam|حي السلام',
      'Sidi Bouzid|سيدي بوزيد',
      'Haouzia|haouzia|الحوزيه',
      'Plateau|le plateau',
      'Mwilha|mouilha|المويلحه',
      'Lalla Zahra',
      'Hay Najd|najd',
      'Cité Portugaise|cite portugaise|الحي البرتغالي',
    ],
  },
  {
    names: 'Oujda|وجده',
    districts: [
      'Hay Zitoune|zitoune',
      'Hay Al Qods|al qods',
      'Lazaret|لازاري',
      'Sidi Maafa|سيدي معافه',
      'Hay Al Andalous|andalous',
      'Oued Nachef|oued nachef|واد الناشف',
      'Route de Jerada|route jerada',
      'Sidi Yahya|sidi yahia',
    ],
  },
  {
    names: 'Tétouan|tetouan|tetuan|تطوان|titouan',
    districts: [
      'Kouilma|كويلمه|coelma',
      'Mhannech|mhanech|امهناش',
      'Touabel|الطوابل',
      'Sania Rmel|saniat rmel|سانيه الرمل',
      'Malaliyine',
      'Wilaya Center',
      'Boussafou|بوسافو',
      'Ensanche|ensanche tetouan',
      'Dersa|jbel dersa',
      'Samsa|سمسه',
      'Sidi Talha',
      'Bab Okla|bab el okla',
      'El Hamama',
    ],
  },
  {
    names: 'Bouskoura|بوسكوره|bouskora',
    districts: [
      // "Bouskoura ville verte": the words "Bouskoura ville" usually begin Ville Verte, so they name no district in text.
      '=Bouskoura Ville|bouskoura centre',
      'Ville Verte|la ville verte',
      '?Victoria|residence victoria',
      'Golf City|bouskoura golf city|golf city bouskoura',
      'Ouled Saleh|oulad saleh',
    ],
  },
  {
    names: 'Dar Bouazza|darbouazza|dar bouaza|دار بوعزه|dar bou azza',
    districts: [
      'Tamaris|tamaris 1|tamaris 2|tamaris 3|tamariss',
      'Ouled Ahmed|oulad ahmed',
      'Ouled Azzouz|oulad azzouz',
      'Jack Beach',
      'Dar Bouazza Centre',
    ],
  },
  { names: 'Nador|الناظور|nadour', districts: ['Ouled Mimoun|oulad mimoun', 'Al Matar|el matar', 'Laari Chikh|lâari chikh'] },
  { names: 'Essaouira|mogador|الصويره|sawira|souira', districts: ['Ghazoua', 'Diabat'] },
  { names: 'Skhirat|الصخيرات|skhirate', districts: ['Plage Rose Marie|=plage rose marée|rose marie'] },
  { names: 'Sidi Rahal|sidi rahhal|سيدي رحال|sidi rahal chatai|sidi rahal plage', districts: [] },
  { names: 'Bouznika|بوزنيقه|bouznika beach', districts: ['Boussattine|bousattine'] },
  { names: 'Berrechid|berchid|برشيد', districts: ['Hay Layali|layali'] },
  { names: 'Béni Mellal|beni mellal|beni melal|بني ملال', districts: [] },
  { names: 'Safi|asfi|اسفي', districts: [] },
  { names: 'Khouribga|خريبكه', districts: [] },
  { names: 'Settat|سطات', districts: [] },
  { names: 'Larache|laarache|العرايش', districts: [] },
  { names: 'Ksar El Kébir|ksar el kebir|ksar kbir|القصر الكبير', districts: [] },
  { names: 'Taza|تازه', districts: [] },
  { names: 'Al Hoceima|alhoceima|hoceima|الحسيمه', districts: [] },
  { names: 'Ifrane|افران', districts: [] },
  { names: 'Errachidia|rachidia|الراشيديه|الرشيديه', districts: [] },
  { names: 'Ouarzazate|ورزازات', districts: [] },
  { names: 'Laâyoune|laayoune|layoune|العيون', districts: [] },
  { names: 'Dakhla|الداخله|dakhla city', districts: [] },
  { names: 'Guelmim|كلميم', districts: [] },
  { names: 'Tiznit|تيزنيت', districts: [] },
  { names: 'Taroudant|تارودانت', districts: [] },
  { names: 'Inezgane|انزكان', districts: [] },
  { names: 'Aït Melloul|ait melloul|ايت ملول', districts: [] },
  { names: 'Benslimane|ben slimane|بنسليمان', districts: [] },
  { names: 'El Mansouria|mansouria|المنصوريه', districts: [] },
  { names: 'Had Soualem|soualem|حد السوالم|السوالم', districts: [] },
  { names: 'Deroua|الدروه', districts: [] },
  { names: 'Tit Mellil|tit melil|تيط مليل', districts: [] },
  { names: 'Médiouna|mediouna|مديونه', districts: [] },
  { names: 'Aïn Harrouda|ain harrouda|ain harouda|عين حروده', districts: ['Zenata|zenata|زناته'] },
  { names: 'Martil|مرتيل', districts: [] },
  { names: "M'diq|mdiq|m diq|المضيق", districts: [] },
  { names: 'Fnideq|الفنيدق', districts: [] },
  { names: 'Cabo Negro|cabonegro|كابو نيكرو', districts: [] },
  { names: 'Asilah|assilah|arzila|اصيله|marina assilah', districts: [] },
  { names: 'Chefchaouen|chaouen|شفشاون', districts: [] },
  { names: 'Ouazzane|وزان', districts: [] },
  { names: 'Saïdia|saidia|السعيديه', districts: [] },
  { names: 'Berkane|بركان', districts: [] },
  { names: 'Taourirt|تاوريرت', districts: [] },
  { names: 'Guercif|جرسيف', districts: [] },
  { names: 'Sefrou|صفرو', districts: [] },
  { names: 'Azrou|ازرو', districts: [] },
  { names: 'Khénifra|khenifra|خنيفره', districts: [] },
  { names: 'Midelt|ميدلت', districts: [] },
  { names: 'El Kelâa des Sraghna|kelaa des sraghna|el kelaa|قلعه السراغنه', districts: [] },
  { names: 'Ben Guerir|benguerir|بن جرير', districts: [] },
  { names: 'Youssoufia|اليوسفية', districts: [] },
  { names: 'Fquih Ben Salah|fkih ben salah|الفقيه بن صالح', districts: [] },
  { names: 'Sidi Kacem|sidi kassem|سيدي قاسم', districts: ['Hay Saada|saada'] },
  { names: 'Sidi Slimane|سيدي سليمان', districts: [] },
  { names: 'Sidi Yahya Zaer|sidi yahya zaer|sidi yahya des zaer|سيدي يحيى زعير', districts: [] },
  { names: 'Tiflet|tifelt|تيفلت', districts: [] },
  { names: 'Khemisset|الخميسات', districts: [] },
  { names: 'Oued Zem|وادي زم', districts: [] },
  { names: 'Azemmour|azzemour|ازمور', districts: [] },
  { names: 'Sidi Bennour|سيدي بنور', districts: [] },
  { names: 'Oualidia|الوليديه', districts: [] },
  { names: 'Tamesna|تامسنا', districts: [] },
  { names: 'Tamansourt|تامنصورت', districts: [] },
  { names: 'Taghazout|تغازوت', districts: [] },
  { names: 'Tamraght|tamraght|تامراغت', districts: [] },
  { names: 'Aourir|اورير', districts: [] },
  { names: 'Mirleft|ميرلفت', districts: [] },
  { names: 'Sidi Ifni|سيدي افني', districts: [] },
  { names: 'Tan-Tan|tantan|طانطان', districts: [] },
  { names: 'Zagora|زاكوره', districts: [] },
  { names: 'Tinghir|تنغير', districts: [] },
  { names: 'Moulay Bouzarqtoune|moulay bouzerktoun|bouzerktoun|مولاي بوزرقطون', districts: [] },
  { names: 'Mehdia|المهديه|mehdiya', districts: [] },
  { names: 'Moulay Bousselham|مولاي بوسلهام', districts: [] },
  { names: 'Souk El Arbaa|souk larbaa|سوق الأربعاء|سوق أربعاء الغرب', districts: [] },
  { names: 'Bouknadel|sidi bouknadel|بوقنادل', districts: [] },
  { names: 'Aïn Aouda|ain aouda|عين عودة', districts: [] },
  { names: 'Imouzzer|immouzer kandar|imouzzer kandar|إيموزار كندر|ايموزار', districts: [] },
  { names: 'Ourika|اوريكا', districts: [] },
  { names: 'Jerada|جراده', districts: [] },
  { names: 'Tanger Med|طنجة المتوسط', districts: [] },
  { names: 'Ben Ahmed|بن احمد', districts: [] },
  { names: 'Tahanaout|تحناوت', districts: [] },
  { names: 'Amizmiz|امزميز', districts: [] },
  { names: 'Chichaoua|شيشاوه', districts: [] },
  { names: 'Aït Ourir|ait ourir|ايت اورير', districts: [] },
  { names: 'El Hajeb|الحاجب', districts: [] },
  { names: 'Aïn Taoujdate|ain taoujdate|عين تاوجطات', districts: [] },
  { names: 'Zaio|زايو', districts: [] },
  { names: 'Driouch|الدريوش', districts: [] },
  { names: 'Selouane|سلوان', districts: [] },
  { names: 'Beni Ansar|بني انصار', districts: [] },
  { names: 'Al Aaroui|el aaroui|العروي', districts: [] },
  { names: 'Imzouren|امزورن', districts: [] },
  { names: 'Targuist|تارجيست', districts: [] },
  { names: 'Mechra Bel Ksiri|mechraa bel ksiri|مشرع بلقصيري', districts: [] },
  { names: 'Sidi Yahya El Gharb|sidi yahya du gharb|سيدي يحيى الغرب', districts: [] },
  { names: 'Sidi Allal Tazi|سيدي علال التازي', districts: [] },
  { names: 'Skhour Rehamna|صخور الرحامنة', districts: [] },
  { names: 'Bir Jdid|بئر الجديد|bir jdid', districts: [] },
  { names: 'Sidi Smaïl|sidi smail|سيدي إسماعيل', districts: [] },
  { names: 'Zemamra|الزمامره', districts: [] },
  { names: 'Chemaïa|chemaia|الشماعية', districts: [] },
  { names: 'Tamanar|تمنار', districts: [] },
  { names: 'Demnate|دمنات', districts: [] },
  { names: 'Azilal|ازيلال', districts: [] },
  { names: 'Kasba Tadla|kasbat tadla|قصبه تادله', districts: [] },
  { names: 'Bejaad|bejaâd|ابي الجعد', districts: [] },
  { names: 'Boujniba|بوجنيبة', districts: [] },
  { names: 'Mrirt|مريرت', districts: [] },
  { names: 'Missour|ميسور', districts: [] },
  { names: 'Rissani|الريصاني', districts: [] },
  { names: 'Erfoud|ارفود', districts: [] },
  { names: 'Goulmima|كلميمه', districts: [] },
  { names: 'Tinejdad|تنجداد', districts: [] },
  { names: "Kelaat M'Gouna|kelaat mgouna|قلعه مكونه", districts: [] },
  { names: 'Boumalne Dadès|boumalne dades|بومالن دادس', districts: [] },
  { names: 'Skoura|سكورة', districts: [] },
  { names: 'Taliouine|تاليوين', districts: [] },
  { names: 'Ouled Teima|oulad teima|اولاد تايمه', districts: [] },
  { names: 'Aït Baha|ait baha|آيت باها', districts: [] },
  { names: 'Biougra|بيوكرى', districts: [] },
  { names: '?Tata|طاطا', districts: [] },
  { names: '?Assa|?أسا', districts: [] },
  { names: 'Smara|es-semara|السماره', districts: [] },
  { names: 'Boujdour|بوجدور', districts: [] },
  { names: 'Bouizakarne|بويزكارن', districts: [] },
  { names: 'Oued Laou|واد لاو', districts: [] },
  { names: 'Ksar Sghir|القصر الصغير', districts: [] },
  { names: 'Gueznaya|كزناية', districts: [] },
  { names: 'Jorf El Melha|جرف الملحة', districts: [] },
  { names: 'Ouislane|ويسلان', districts: [] },
  { names: 'Ain Cheggag|ain chegag|عين الشقف', districts: [] },
  { names: 'Bni Yakhlef|beni yakhlef|بني يخلف', districts: [] },
  { names: 'Sidi Taibi|سيدي الطيبي', districts: [] },
  { names: 'Taounate|تاونات', districts: [] },
  { names: 'Ouled Frej|أولاد فرج', districts: [] },
  { names: 'Sidi Harazem|سيدي حرازم', districts: [] },
  { names: 'Moulay Yacoub|مولاي يعقوب', districts: [] },
  { names: 'Bouarfa|بوعرفه', districts: [] },
  { names: 'Figuig|فجيج', districts: [] },
];

/** Districts every city has: the centre and the old town. */
const GENERIC_DISTRICTS = [
  'Centre Ville|centre ville|centreville|city center|city centre|downtown|وسط المدينه|=centre|=center|=centre-ville',
  '?Médina|ancienne medina|old medina|المدينه القديمه|?la medina',
];

export interface Place {
  city: string | null;
  district: string | null;
}

export type PlaceEntry = { kind: 'city'; city: string } | { kind: 'district'; city: string | null; district: string };

export interface Alias {
  entry: PlaceEntry;
  /** Needs a place word before it in free text (see the module comment). */
  needsContext: boolean;
}

interface ParsedName {
  display: string;
  /** The wider district this one belongs to ("Les Princesses" is part of "Maârif"). */
  parent: string | null;
  aliases: { key: string; lookupOnly: boolean; needsContext: boolean }[];
}

function parseNames(spec: string): ParsedName {
  const [head = '', ...rest] = spec.split('|');
  const [canonical = '', parent] = head.split('>');
  const parts = [canonical, ...rest];
  const display = canonical.replace(/^[=?]/, '');
  const aliases = parts.map((part) => ({
    key: nameKey(part.replace(/^[=?]/, '')),
    lookupOnly: part.startsWith('='),
    needsContext: part.startsWith('?'),
  }));
  return { display, parent: parent ?? null, aliases: aliases.filter((alias) => alias.key !== '') };
}

/** Free-text aliases (key → entries) and the prefixes of their word sequences. */
const TEXT_ALIASES = new Map<string, Alias[]>();
const TEXT_PREFIXES = new Set<string>();
/** Every alias, free-text and lookup-only, for normalising portal fields. */
const LOOKUP_ALIASES = new Map<string, PlaceEntry[]>();
const CITY_NAMES: string[] = [];
const DISTRICTS_BY_CITY = new Map<string, string[]>();
/** "city|district" → the wider district it belongs to. */
const PARENT_DISTRICT = new Map<string, string>();
/** Single-word Latin city names of 7+ letters by initial, for typo-tolerant matching ("Casablanta"). */
const FUZZY_CITY_KEYS = new Map<string, Array<[string, string]>>();
/** Single-word Latin city names of 5+ letters ending in a consonant ("agadir"), for "Agadire". */
const SUFFIXED_E_CITY_KEYS = new Map<string, string>();

function addAlias(key: string, entry: PlaceEntry, lookupOnly: boolean, needsContext: boolean): void {
  const lookup = LOOKUP_ALIASES.get(key) ?? [];
  lookup.push(entry);
  LOOKUP_ALIASES.set(key, lookup);
  if (lookupOnly) return;
  const aliases = TEXT_ALIASES.get(key) ?? [];
  aliases.push({ entry, needsContext });
  TEXT_ALIASES.set(key, aliases);
  const words = key.split(' ');
  for (let length = 1; length <= words.length; length += 1) TEXT_PREFIXES.add(words.slice(0, length).join(' '));
}

/** Arabic-script spellings of each city (nameKey form). */
const ARABIC_NAMES = new Map<string, string[]>();

for (const spec of CITIES) {
  const city = parseNames(spec.names);
  CITY_NAMES.push(city.display);
  ARABIC_NAMES.set(
    city.display,
    city.aliases.filter((alias) => /[\u0600-\u06ff]/.test(alias.key)).map((alias) => alias.key),
  );
  const entry: PlaceEntry = { kind: 'city', city: city.display };
  for (const alias of city.aliases) {
    addAlias(alias.key, entry, alias.lookupOnly, alias.needsContext);
    if (!alias.lookupOnly && !alias.needsContext && alias.key.length >= 5 && /^[a-z]+[^aeiouy]$/.test(alias.key))
      SUFFIXED_E_CITY_KEYS.set(alias.key, city.display);
    if (!alias.lookupOnly && !alias.needsContext && alias.key.length >= 7 && /^[a-z]+$/.test(alias.key)) {
      const sameInitial = FUZZY_CITY_KEYS.get(alias.key[0] as string) ?? [];
      sameInitial.push([alias.key, city.display]);
      FUZZY_CITY_KEYS.set(alias.key[0] as string, sameInitial);
    }
  }
  const districts: string[] = [];
  for (const districtSpec of spec.districts) {
    const district = parseNames(districtSpec);
    districts.push(district.display);
    if (district.parent !== null) PARENT_DISTRICT.set(`${city.display}|${district.display}`, district.parent);
    const districtEntry: PlaceEntry = { kind: 'district', city: city.display, district: district.display };
    for (const alias of district.aliases) addAlias(alias.key, districtEntry, alias.lookupOnly, alias.needsContext);
  }
  DISTRICTS_BY_CITY.set(city.display, districts);
}
for (const districtSpec of GENERIC_DISTRICTS) {
  const district = parseNames(districtSpec);
  const entry: PlaceEntry = { kind: 'district', city: null, district: district.display };
  for (const alias of district.aliases) addAlias(alias.key, entry, alias.lookupOnly, alias.needsContext);
}

/** Aliases of a free-text word sequence (already in nameKey form), or undefined. */
export function textAliases(key: string): readonly Alias[] | undefined {
  return TEXT_ALIASES.get(key);
}

/** True when some free-text alias starts with this word sequence. */
export function isAliasPrefix(key: string): boolean {
  return TEXT_PREFIXES.has(key);
}

function withinOneEdit(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  let j = 0;
  let edits = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      i += 1;
      j += 1;
      continue;
    }
    edits += 1;
    if (edits > 1) return false;
    if (a.length > b.length) i += 1;
    else if (b.length > a.length) j += 1;
    else if (a[i + 1] === b[j] && a[i] === b[j + 1]) {
      // transposition
      i += 2;
      j += 2;
    } else {
      i += 1;
      j += 1;
    }
  }
  return edits + (a.length - i) + (b.length - j) <= 1;
}

/** A city whose long single-word name is one typo away from `word` (nameKey form), or null. */
export function fuzzyCity(word: string): string | null {
  if (!/^[a-z]+$/.test(word)) return null;
  // French writers add a mute e to a name ending in a consonant: "Agadire", "Nadore", "Rabate".
  if (word.length >= 6 && word.endsWith('e')) {
    const city = SUFFIXED_E_CITY_KEYS.get(word.slice(0, -1));
    if (city !== undefined) return city;
  }
  if (word.length < 7) return null;
  for (const [key, city] of FUZZY_CITY_KEYS.get(word[0] as string) ?? []) {
    if (withinOneEdit(key, word)) return city;
  }
  return null;
}

/** The Arabic-script spellings the gazetteer knows for a city (docs/analysis-text.md "City and district"). */
export function arabicNamesOf(city: string): readonly string[] {
  return ARABIC_NAMES.get(city) ?? [];
}

/** Canonical names of every city in the gazetteer. */
export function cityNames(): readonly string[] {
  return CITY_NAMES;
}

/** Canonical district names of a city (empty for unknown cities). */
export function districtsOf(city: string): readonly string[] {
  const canonical = findCity(city);
  return canonical === null ? [] : (DISTRICTS_BY_CITY.get(canonical) ?? []);
}

/** Words portals put before a place name (in nameKey form: "immobilier" → "imobilier"). */
const PORTAL_PREFIX = new RegExp(
  `^(?:${['immobilier', 'ville de', 'ville', 'city of', 'province de', 'prefecture de', 'commune de', 'quartier', 'secteur'].map(nameKey).join('|')}) `,
);

/** Strips what portals put around a place name: "Immobilier Casablanca", "Casablanca (Anfa)". */
function candidateKeys(name: string): string[] {
  const key = nameKey(name);
  const keys = [key];
  const withoutParentheses = nameKey(name.replace(/\([^()]*\)/g, ' '));
  if (withoutParentheses !== key) keys.push(withoutParentheses);
  const withoutPrefix = key.replace(PORTAL_PREFIX, '');
  if (withoutPrefix !== key) keys.push(withoutPrefix);
  return keys;
}

/** The canonical city for a name as written by a user or a portal ("casa", "Marrakesh", "الرباط", "Casablanta"), or null. */
export function findCity(name: string): string | null {
  for (const key of candidateKeys(name)) {
    const city = LOOKUP_ALIASES.get(key)?.find((entry) => entry.kind === 'city');
    if (city?.kind === 'city') return city.city;
  }
  return fuzzyCity(nameKey(name));
}

/** The canonical city name when known, else the input tidied (trimmed, spaces collapsed); null for a blank name. */
export function normalizeCity(name: string): string | null {
  const tidy = name.replace(/\s+/g, ' ').trim();
  if (tidy === '') return null;
  return findCity(tidy) ?? tidy;
}

/**
 * The canonical district for a name in a city ("Maarif" in Casablanca → "Maârif"; "Centre" → "Centre Ville").
 * With a null or unknown city, a name that is a district of exactly one city (or the same name in every
 * city that has it) is still found. Null when the gazetteer does not know the district.
 */
export function findDistrict(city: string | null, name: string): string | null {
  const canonicalCity = city === null ? null : findCity(city);
  for (const key of candidateKeys(name)) {
    const entries = (LOOKUP_ALIASES.get(key) ?? []).filter(
      (entry): entry is Extract<PlaceEntry, { kind: 'district' }> => entry.kind === 'district',
    );
    if (entries.length === 0) continue;
    const inCity = entries.find((entry) => entry.city !== null && entry.city === canonicalCity);
    if (inCity) return inCity.district;
    const generic = entries.find((entry) => entry.city === null);
    if (generic) return generic.district;
    if (canonicalCity === null) {
      const names = new Set(entries.map((entry) => entry.district));
      if (names.size === 1) return entries[0]?.district ?? null;
    }
  }
  return null;
}

/** The cities that have a district of this name (canonical names). */
export function citiesOfDistrict(name: string): string[] {
  const entries = LOOKUP_ALIASES.get(nameKey(name)) ?? [];
  return [...new Set(entries.flatMap((entry) => (entry.kind === 'district' && entry.city !== null ? [entry.city] : [])))];
}

/**
 * The wider district a district belongs to ("Les Princesses" → "Maârif", "Bourgogne Est" → "Bourgogne"),
 * or null. Portals file listings at different granularity; market figures may exist only for the wider one.
 */
export function parentDistrict(city: string, district: string): string | null {
  const canonicalCity = findCity(city);
  if (canonicalCity === null) return null;
  const canonicalDistrict = findDistrict(canonicalCity, district);
  return canonicalDistrict === null ? null : (PARENT_DISTRICT.get(`${canonicalCity}|${canonicalDistrict}`) ?? null);
}

/**
 * Metropolitan areas: communes that portals file sometimes under their own name and sometimes
 * under the big city's ("Ville Verte, Casablanca" for Bouskoura). Membership follows the
 * administrative map (docs/analysis-text.md "Metro areas" names the sources): Grand Casablanca is
 * the Casablanca and Mohammedia prefectures with the Nouaceur and Médiouna provinces, plus Had
 * Soualem, sold as Casablanca's southern periphery; Rabat's area is the Rabat, Salé and
 * Skhirate-Témara prefectures; Kénitra's takes in Mehdia. Places the gazetteer knows as districts
 * (Lissasfa, Nouaceur, Harhoura) inherit the area of their city.
 */
export interface MetroArea {
  /** "Grand Casablanca". */
  name: string;
  /** The city whose market figures stand for the area: "Casablanca". */
  core: string;
}

const METRO_AREAS: ReadonlyArray<MetroArea & { communes: readonly string[] }> = [
  {
    name: 'Grand Casablanca',
    core: 'Casablanca',
    communes: ['Casablanca', 'Mohammedia', 'Bouskoura', 'Dar Bouazza', 'Tit Mellil', 'Médiouna', 'Had Soualem'],
  },
  { name: 'Grand Rabat', core: 'Rabat', communes: ['Rabat', 'Salé', 'Témara', 'Skhirat', 'Tamesna', 'Aïn Aouda', 'Bouknadel'] },
  { name: 'Grand Kénitra', core: 'Kénitra', communes: ['Kénitra', 'Mehdia'] },
];

const METRO_OF_CITY: ReadonlyMap<string, MetroArea> = new Map(
  METRO_AREAS.flatMap(({ name, core, communes }) =>
    communes.map((commune): [string, MetroArea] => {
      const canonical = findCity(commune);
      if (canonical === null) throw new Error(`gazetteer: metro area commune ${commune} is not a known city`);
      return [canonical, { name, core }];
    }),
  ),
);

/** The metropolitan area a city or commune belongs to ("Bouskoura" → Grand Casablanca), or null. */
export function metroAreaOf(city: string): MetroArea | null {
  const canonical = findCity(city);
  return canonical === null ? null : (METRO_OF_CITY.get(canonical) ?? null);
}

/** The name of a city's metropolitan area ("Bouskoura" → "Grand Casablanca"), or null. */
export function metroArea(city: string): string | null {
  return metroAreaOf(city)?.name ?? null;
}

/** Every commune of every metro area with its area, for the market tables. */
export function metroAreaCommunes(): ReadonlyArray<[string, MetroArea]> {
  return [...METRO_OF_CITY];
}
